package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/browsertest"
	"github.com/rightsize/rightsize/internal/storetest"
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

// longLabelRuns stores five runs labelled the way a fit labels its
// candidates (fit-ID cpus N, memory M): long labels that used to wrap the
// legend over the axis names.
func longLabelRuns(t *testing.T) []RunData {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	start := time.Date(2026, 11, 26, 13, 16, 56, 0, time.UTC)
	var ids []string
	for i, cpus := range []string{"0.25", "0.5", "1", "1.5", "2"} {
		f := float64(i + 1)
		ids = append(ids, buildRun(t, st, start.Add(time.Duration(i)*time.Hour), fixtureRun{
			label: "fit-20261126-131656-aa4200 cpus " + cpus + ", memory 512M", users: []int{1, 2, 4}, repeats: 2, jitter: 0.02,
			tpm:   func(u int) float64 { return 9000 * f * math.Min(float64(u), 3) },
			latMs: func(u int) float64 { return 9 - f + float64(u) }, cpus: 2,
			flags: map[string]string{"fit": "20261126-131656-aa4200", "cpus": cpus}}))
	}
	runs, err := Load(ctx, st, ids...)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// layoutProbe is appended to a report: for every chart it writes, into the
// body's data-layout attribute, the boxes (page pixels within the chart) of
// the legend (its background rectangle, which spans what it shows, page
// buttons included), of the title and subtitle texts and of the axis names.
const layoutProbe = `<script>
(function () {
  function box(el) {
    var r = el.getBoundingRect().clone();
    var m = el.getComputedTransform();
    if (m) { r.applyTransform(m); }
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  }
  var out = [];
  Array.prototype.forEach.call(document.querySelectorAll('.item'), function (el) {
    var c = echarts.getInstanceByDom(el);
    if (!c) { return; }
    var chart = {id: el.id, width: c.getWidth(), legends: [], texts: []};
    c.getModel().eachComponent('legend', function (m) {
      var v = c.getViewOfComponentModel(m);
      if (m.get('show') !== false && v && v._backgroundEl) { chart.legends.push(box(v._backgroundEl)); }
    });
    c.getModel().eachComponent('title', function (m) {
      var v = c.getViewOfComponentModel(m);
      if (!v) { return; }
      v.group.traverse(function (e) {
        if (e.style && typeof e.style.text === 'string' && e.style.text !== '') {
          var b = box(e); b.text = e.style.text; b.kind = 'title'; chart.texts.push(b);
        }
      });
    });
    ['xAxis', 'yAxis'].forEach(function (axis) {
      c.getModel().eachComponent(axis, function (m) {
        var v = c.getViewOfComponentModel(m);
        if (!v) { return; }
        v.group.traverse(function (e) {
          if (e.anid === 'name' && e.style && e.style.text) {
            var b = box(e); b.text = e.style.text; b.kind = 'axis name'; chart.texts.push(b);
          }
        });
      });
    });
    out.push(chart);
  });
  document.body.setAttribute('data-layout', JSON.stringify(out));
})();
</script>`

// cjkLineHeight makes echarts measure a line of text as high as its font
// size, as it does where a CJK font is installed (it measures the width of
// "国"); without one, as on a bare Debian, lines measure 0.6 of the size
// and a layout checked here could overlap on the readers' machines.
const cjkLineHeight = `<script>
(function () {
  var ctx = document.createElement('canvas').getContext('2d');
  echarts.setPlatformAPI({measureText: function (text, font) {
    ctx.font = font || '12px sans-serif';
    var px = /([0-9.]+)px/.exec(ctx.font);
    if (text === '国' && px) { return {width: parseFloat(px[1])}; }
    return ctx.measureText(text);
  }});
})();
</script>`

// chartLayout is one chart's boxes as layoutProbe reports them.
type chartLayout struct {
	ID      string      `json:"id"`
	Width   float64     `json:"width"`
	Legends []layoutBox `json:"legends"`
	Texts   []layoutBox `json:"texts"`
}

// layoutBox is a box in pixels, with the text it holds.
type layoutBox struct {
	X, Y, W, H float64
	Text, Kind string
}

// overlaps reports whether two boxes share more than a pixel's sliver.
func (a layoutBox) overlaps(b layoutBox) bool {
	const slack = 0.5
	return a.X+a.W > b.X+slack && b.X+b.W > a.X+slack && a.Y+a.H > b.Y+slack && b.Y+b.H > a.Y+slack
}

// measureLayout opens page in Chromium at a window width and returns every
// chart's boxes.
func measureLayout(t *testing.T, bin string, page []byte, width int) []chartLayout {
	t.Helper()
	head := bytes.Index(page, []byte("</head>"))
	end := bytes.LastIndex(page, []byte("</body>")) // the embedded library holds the string too
	var b bytes.Buffer
	b.Write(page[:head])
	b.WriteString(cjkLineHeight)
	b.Write(page[head:end])
	b.WriteString(layoutProbe)
	b.Write(page[end:])
	page = b.Bytes()
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := runChromium(t, bin, file, "--dump-dom", fmt.Sprintf("--window-size=%d,3000", width))
	if msgs := consoleRE.FindAll(logs, -1); len(msgs) > 0 {
		t.Errorf("console messages:\n%s", bytes.Join(msgs, []byte("\n")))
	}
	m := regexp.MustCompile(`data-layout="([^"]*)"`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the layout probe did not run:\n%.2000s", dom)
	}
	var out []chartLayout
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &out); err != nil {
		t.Fatalf("layout %q: %v", m[1], err)
	}
	return out
}

// TestLegendsClearOfText lays out a report of five runs with long labels,
// a sweep and a fit in Chromium, wide and narrow, and checks that no
// chart's legend covers its title, subtitle or axis names, and that those
// texts fit in the chart.
func TestLegendsClearOfText(t *testing.T) {
	bin := chromium(t)
	var buf bytes.Buffer
	opts := Options{Version: "test", Generated: time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC), Sweep: testSweep(), Fit: testFit()}
	if err := HTML(&buf, longLabelRuns(t), opts); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{1400, 800} {
		charts := measureLayout(t, bin, buf.Bytes(), width)
		legends := 0
		for _, c := range charts {
			legends += len(c.Legends)
			for _, x := range c.Texts {
				if x.X < -0.5 || x.X+x.W > c.Width+0.5 {
					t.Errorf("width %d, %s: the %s %q (x %.0f to %.0f) runs off the chart (width %.0f)", width, c.ID, x.Kind, x.Text, x.X, x.X+x.W, c.Width)
				}
			}
			for _, l := range c.Legends {
				for _, x := range c.Texts {
					if l.overlaps(x) {
						t.Errorf("width %d, %s: the legend (%.0f,%.0f %.0f×%.0f) covers the %s %q (%.0f,%.0f %.0f×%.0f)",
							width, c.ID, l.X, l.Y, l.W, l.H, x.Kind, x.Text, x.X, x.Y, x.W, x.H)
					}
				}
			}
		}
		if len(charts) < 10 || legends < len(charts) {
			t.Fatalf("width %d: %d charts with %d legends measured: the probe found too little", width, len(charts), legends)
		}
	}
}
