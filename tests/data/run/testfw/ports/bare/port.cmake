# Test firmware port: normal log.
set(TESTFW_MODE normal)
