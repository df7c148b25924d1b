//go:build !unix

package main

// brokenPipes watches nothing where there is no SIGPIPE.
func brokenPipes(func()) (stop func()) { return func() {} }
