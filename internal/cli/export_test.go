package cli

// ParseBytes exposes parseBytes to the tests.
var ParseBytes = parseBytes
