# Test firmware port: slow log.
set(TESTFW_MODE slow)
set(TESTFW_LINE_DELAY 6000000)
