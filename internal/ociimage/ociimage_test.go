package ociimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"testing"

	"github.com/opencontainers/go-digest"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// TestWrite checks the layout: every blob named by its digest, the index
// naming the manifest and the image, the manifest the config and the layer,
// the config the layer's diff id, the files with their parents; and that the
// same image gives the same bytes.
func TestWrite(t *testing.T) {
	img := Image{Name: "ghcr.io/rightsize/rightsize:v1", User: "65532:65532", Entrypoint: []string{"/usr/local/bin/rightsize"},
		ExposedPorts: []string{"9464/tcp"}, Files: []File{{Path: "/usr/local/bin/rightsize", Mode: 0o755, Data: []byte("binary")},
			{Path: "/tmp", Mode: 0o1777, Dir: true}}}
	var a, b bytes.Buffer
	if err := Write(&a, img); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, img); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("two writes differ (%v)", err)
	}
	files := untar(t, a.Bytes())
	for name, data := range files {
		if len(name) > 13 && name[:13] == "blobs/sha256/" && digest.FromBytes(data).Encoded() != name[13:] {
			t.Errorf("blob %s has digest %s", name, digest.FromBytes(data))
		}
	}
	var index v1.Index
	mustJSON(t, files["index.json"], &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Annotations["io.containerd.image.name"] != img.Name ||
		index.Manifests[0].Annotations[v1.AnnotationRefName] != "v1" {
		t.Fatalf("index %+v, want one manifest named %s", index, img.Name)
	}
	var m v1.Manifest
	mustJSON(t, files["blobs/sha256/"+index.Manifests[0].Digest.Encoded()], &m)
	var config v1.Image
	mustJSON(t, files["blobs/sha256/"+m.Config.Digest.Encoded()], &config)
	if config.Config.User != img.User || config.Config.Entrypoint[0] != img.Entrypoint[0] || len(m.Layers) != 1 {
		t.Fatalf("config %+v with %d layers", config.Config, len(m.Layers))
	}
	zr, err := gzip.NewReader(bytes.NewReader(files["blobs/sha256/"+m.Layers[0].Digest.Encoded()]))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	if config.RootFS.DiffIDs[0] != digest.FromBytes(raw) {
		t.Errorf("diff id %s, layer's %s", config.RootFS.DiffIDs[0], digest.FromBytes(raw))
	}
	layer := untar(t, raw)
	for _, want := range []string{"usr/", "usr/local/", "usr/local/bin/", "tmp/"} {
		if _, ok := layer[want]; !ok {
			t.Errorf("layer lacks %s: %v", want, keys(layer))
		}
	}
	if string(layer["usr/local/bin/rightsize"]) != "binary" {
		t.Errorf("layer's binary %q", layer["usr/local/bin/rightsize"])
	}
	if err := Write(io.Discard, Image{Name: "x", Files: []File{{Path: "../etc"}}}); err == nil {
		t.Error("a path outside the image was taken")
	}
}

func untar(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name], _ = io.ReadAll(tr)
	}
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
