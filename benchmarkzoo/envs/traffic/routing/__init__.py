"""``benchmarkzoo/Routing-v0``: connected autonomous vehicles choose their routes on a SUMO grid."""
