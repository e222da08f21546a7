"""The evaluation protocol: suites, policies, the runner and the results file."""
