// Package ociimage writes a one-layer OCI image as an image-layout tarball
// (oci-layout, index.json, blobs/sha256/...) that `ctr images import`,
// `docker load` and registries (skopeo, crane) take, so that images are
// built without a container engine or a registry: rightsize's own image
// (scripts/image.sh) and the test cluster's pause image (scripts/k8s-up.sh).
// The output is reproducible: the same files give the same digests.
package ociimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "crypto/sha256" // go-digest's sha256
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// File is one regular file or directory (Dir) of the image's layer.
type File struct {
	Path string // absolute, e.g. /usr/local/bin/rightsize
	Mode int64  // permission bits, e.g. 0o755
	Dir  bool
	Data []byte
}

// Image describes the image: its reference (Name, e.g.
// ghcr.io/rightsize/rightsize:v1), its run configuration and its files.
type Image struct {
	Name         string
	User         string // "uid:gid"
	Entrypoint   []string
	Env          []string
	ExposedPorts []string // "9464/tcp"
	Files        []File
}

// epoch is the time stamp of every file and of the image: fixed, for
// reproducible digests.
var epoch = time.Unix(0, 0).UTC()

// Write writes img to w as an OCI image-layout tarball.
func Write(w io.Writer, img Image) error {
	if img.Name == "" {
		return fmt.Errorf("image has no name")
	}
	layer, diffID, err := layerTar(img.Files)
	if err != nil {
		return fmt.Errorf("image layer: %w", err)
	}
	config, err := json.Marshal(imageConfig(img, diffID))
	if err != nil {
		return err
	}
	manifest, err := json.Marshal(v1.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: v1.MediaTypeImageManifest,
		Config:    descriptor(v1.MediaTypeImageConfig, config),
		Layers:    []v1.Descriptor{descriptor(v1.MediaTypeImageLayerGzip, layer)},
	})
	if err != nil {
		return err
	}
	md := descriptor(v1.MediaTypeImageManifest, manifest)
	md.Annotations = map[string]string{"io.containerd.image.name": img.Name, v1.AnnotationRefName: tagOf(img.Name)}
	md.Platform = &v1.Platform{Architecture: "amd64", OS: "linux"}
	index, err := json.Marshal(v1.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: v1.MediaTypeImageIndex,
		Manifests: []v1.Descriptor{md}})
	if err != nil {
		return err
	}
	layout, _ := json.Marshal(v1.ImageLayout{Version: v1.ImageLayoutVersion})
	tw := tar.NewWriter(w)
	entries := []struct {
		name string
		data []byte
	}{{v1.ImageLayoutFile, layout}, {"index.json", index}, {"blobs/", nil}, {"blobs/sha256/", nil},
		{blob(manifest), manifest}, {blob(config), config}, {blob(layer), layer}}
	for _, e := range entries {
		if err := writeEntry(tw, e.name, e.data); err != nil {
			return fmt.Errorf("write %s: %w", e.name, err)
		}
	}
	return tw.Close()
}

func imageConfig(img Image, diffID digest.Digest) v1.Image {
	ports := map[string]struct{}{}
	for _, p := range img.ExposedPorts {
		ports[p] = struct{}{}
	}
	env := img.Env
	if len(env) == 0 {
		env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	}
	return v1.Image{
		Created:  &epoch,
		Platform: v1.Platform{Architecture: "amd64", OS: "linux"},
		Config:   v1.ImageConfig{User: img.User, Entrypoint: img.Entrypoint, Env: env, ExposedPorts: ports, WorkingDir: "/"},
		RootFS:   v1.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
		History:  []v1.History{{Created: &epoch, CreatedBy: "ociimage", Comment: img.Name}},
	}
}

// layerTar returns the gzipped layer and the digest of its uncompressed
// tar (the config's diff id). Parent directories are added as needed.
func layerTar(files []File) ([]byte, digest.Digest, error) {
	all := map[string]File{}
	for _, f := range files {
		p := strings.TrimPrefix(path.Clean(f.Path), "/")
		if !strings.HasPrefix(f.Path, "/") || p == "" || p == "." {
			return nil, "", fmt.Errorf("bad path %q: give an absolute path inside the image", f.Path)
		}
		f.Path = p
		all[p] = f
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := all[d]; !ok {
				all[d] = File{Path: d, Mode: 0o755, Dir: true}
			}
		}
	}
	names := make([]string, 0, len(all))
	for p := range all {
		names = append(names, p)
	}
	sort.Strings(names)
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, p := range names {
		f := all[p]
		h := &tar.Header{Name: p, Mode: f.Mode, ModTime: epoch, Typeflag: tar.TypeReg, Size: int64(len(f.Data)), Format: tar.FormatPAX}
		if f.Dir {
			h.Name, h.Typeflag, h.Size = p+"/", tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, "", err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.ModTime = epoch
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return gz.Bytes(), digest.FromBytes(raw.Bytes()), nil
}

func descriptor(mediaType string, b []byte) v1.Descriptor {
	return v1.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
}

func blob(b []byte) string { return "blobs/sha256/" + digest.FromBytes(b).Encoded() }

// tagOf returns the tag of a reference (name:tag), "latest" without one.
func tagOf(ref string) string {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[i+1:]
	}
	return "latest"
}

func writeEntry(tw *tar.Writer, name string, data []byte) error {
	h := &tar.Header{Name: name, Mode: 0o644, ModTime: epoch, Typeflag: tar.TypeReg, Size: int64(len(data))}
	if strings.HasSuffix(name, "/") {
		h.Mode, h.Typeflag = 0o755, tar.TypeDir
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}
