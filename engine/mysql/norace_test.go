//go:build !race

package mysql_test

const raceEnabled = false
