# Test firmware port: truncated log.
set(TESTFW_MODE truncated)
