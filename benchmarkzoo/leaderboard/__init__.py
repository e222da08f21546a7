"""The leaderboard: validating untrusted submissions, storing them, and building leaderboard JSON."""
