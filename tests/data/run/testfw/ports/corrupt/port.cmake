# Test firmware port: corrupt log.
set(TESTFW_MODE corrupt)
