# Test firmware port: broken log.
set(TESTFW_MODE broken)
