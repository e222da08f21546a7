"""Contracts shared by every env: errors, seeding, scenarios, space checks and optional extras."""
