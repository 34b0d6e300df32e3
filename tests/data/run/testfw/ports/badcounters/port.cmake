# Test firmware port: badcounters log.
set(TESTFW_MODE badcounters)
