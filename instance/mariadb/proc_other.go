//go:build !linux

package mariadb

import "syscall"

func sysProcAttr(*account) *syscall.SysProcAttr { return nil }

func lockFile(string) (func(), error) { return func() {}, nil }

func tryLockFile(string) (func(), error) { return func() {}, nil }

func searchable(string, int, int) bool { return true }

func chownTree(string, int, int) error { return nil }
