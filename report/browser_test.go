package report

import (
	"bytes"
	"github.com/rightsize/rightsize/internal/browsertest"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chromium returns the headless browser (browsertest.Chromium).
func chromium(t *testing.T) string { t.Helper(); return browsertest.Chromium(t) }

// runChromium runs headless chromium on a file (browsertest.Run).
func runChromium(t *testing.T, bin, file string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	return browsertest.Run(t, bin, file, extra...)
}

var (
	consoleRE  = browsertest.ConsoleRE
	instanceRE = browsertest.InstanceRE
)

// TestHTMLInBrowser opens the report in headless Chromium: no console
// message (no script error), every chart rendered into a canvas, and a
// screenshot that is not blank.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	page := renderStudyWithProbes(t) // every section: the runs', and the probes' (storage, CPU, backup)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	charts := strings.Count(string(page), "echarts.init(")

	dom, logs := runChromium(t, bin, file, "--dump-dom")
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages while loading the report:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	if n := len(instanceRE.FindAll(dom, -1)); n != charts {
		t.Errorf("%d of %d charts initialised", n, charts)
	}
	if n := bytes.Count(dom, []byte("<canvas")); n < charts {
		t.Errorf("%d canvases for %d charts", n, charts)
	}

	shot := filepath.Join(dir, "report.png")
	if out := os.Getenv("RIGHTSIZE_SCREENSHOT"); out != "" { // to look at it by hand
		shot = out
	}
	_, logs = runChromium(t, bin, file, "--screenshot="+shot, "--window-size=1400,3000", "--hide-scrollbars")
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages while taking the screenshot:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours, coloured := pixelStats(img)
	t.Logf("screenshot %s: %d distinct colours, %.1f%% coloured pixels", shot, colours, coloured*100)
	if colours < 64 {
		t.Errorf("screenshot has %d distinct colours: blank or unstyled?", colours)
	}
	// The charts' bars and lines are saturated colours; text and grid
	// lines are grey. A page of charts has a good share of them.
	if coloured < 0.005 {
		t.Errorf("only %.2f%% of the screenshot's pixels are coloured: charts not drawn?", coloured*100)
	}
}

// pixelStats returns the number of distinct colours of an image and the
// share of its pixels that are clearly coloured (not white, grey or black).
func pixelStats(img image.Image) (distinct int, coloured float64) {
	seen := map[uint32]bool{}
	b := img.Bounds()
	n, c := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			seen[r<<16|g<<8|bl] = true
			n++
			if max(r, g, bl)-min(r, g, bl) > 60 {
				c++
			}
		}
	}
	return len(seen), float64(c) / float64(n)
}
