package backup

// Server is the test server of this package's tests, for the tests of
// package backup_test (which may import target, whose registry imports
// this package).
var Server = server
