# Test firmware port: hang log.
set(TESTFW_MODE hang)
