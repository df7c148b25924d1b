// Command pause is the pod sandbox ("pause") image of the test cluster
// (scripts/k8s-up.sh): it holds the pod's namespaces by waiting, and exits
// on SIGTERM or SIGINT. Built static into an image of its own, so that no
// registry is needed.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
