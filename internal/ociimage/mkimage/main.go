// Command mkimage writes a one-layer OCI image-layout tarball from files on
// this machine (see package ociimage):
//
//	go run ./internal/ociimage/mkimage -o image.tar -name ghcr.io/rightsize/rightsize:dev \
//	  -user 65532:65532 -entrypoint /usr/local/bin/rightsize -port 9464/tcp \
//	  -add bin/rightsize:/usr/local/bin/rightsize:0755
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/ociimage"
)

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var img ociimage.Image
	var out, entrypoint string
	var adds, dirs, ports list
	flag.StringVar(&out, "o", "", "the tarball to write")
	flag.StringVar(&img.Name, "name", "", "the image reference, e.g. ghcr.io/rightsize/rightsize:dev")
	flag.StringVar(&img.User, "user", "", "uid:gid the container runs as")
	flag.StringVar(&entrypoint, "entrypoint", "", "the entrypoint (words separated by spaces)")
	flag.Var(&adds, "add", "SRC:DEST:MODE, a file of this machine copied into the image (repeatable)")
	flag.Var(&dirs, "dir", "DEST:MODE, an empty directory (repeatable)")
	flag.Var(&ports, "port", "an exposed port, e.g. 9464/tcp (repeatable)")
	flag.Parse()
	if out == "" || img.Name == "" {
		fail(fmt.Errorf("give -o FILE and -name REF"))
	}
	img.Entrypoint, img.ExposedPorts = strings.Fields(entrypoint), ports
	for _, a := range adds {
		f, err := file(a)
		if err != nil {
			fail(err)
		}
		img.Files = append(img.Files, f)
	}
	for _, d := range dirs {
		p, m, ok := strings.Cut(d, ":")
		mode, err := strconv.ParseInt(m, 8, 64)
		if !ok || err != nil {
			fail(fmt.Errorf("-dir %q: want DEST:MODE, e.g. /tmp:1777", d))
		}
		img.Files = append(img.Files, ociimage.File{Path: p, Mode: mode, Dir: true})
	}
	if err := write(out, img); err != nil {
		fail(err)
	}
}

// file reads -add SRC:DEST:MODE.
func file(arg string) (ociimage.File, error) {
	parts := strings.Split(arg, ":")
	if len(parts) != 3 {
		return ociimage.File{}, fmt.Errorf("-add %q: want SRC:DEST:MODE, e.g. bin/rightsize:/usr/local/bin/rightsize:0755", arg)
	}
	mode, err := strconv.ParseInt(parts[2], 8, 64)
	if err != nil {
		return ociimage.File{}, fmt.Errorf("-add %q: mode %q is not octal", arg, parts[2])
	}
	data, err := os.ReadFile(parts[0])
	if err != nil {
		return ociimage.File{}, err
	}
	return ociimage.File{Path: parts[1], Mode: mode, Data: data}, nil
}

func write(out string, img ociimage.Image) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := ociimage.Write(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	return f.Close()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mkimage:", err)
	os.Exit(2)
}
