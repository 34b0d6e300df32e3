# Test firmware port: vanish log.
set(TESTFW_MODE vanish)
