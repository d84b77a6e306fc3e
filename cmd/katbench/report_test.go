package main

import (
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

func TestReportCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	if _, errOut, code := katbench(t, dir, "report", filepath.Join(dir, "nope.jsonl"), "-o", out); code != 2 || !strings.Contains(errOut, "nope.jsonl") {
		t.Fatalf("missing file: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a failed report left a file behind")
	}
}

// TestReportScreenshot renders a report from a constructed history, opens
// it in headless Chromium (scripts/report-screenshot.sh) and checks that
// the screenshot shows the plots: not blank, many colours, and the first
// two series colours present. Set KATBENCH_SCREENSHOT_DIR to keep the PNG.
func TestReportScreenshot(t *testing.T) {
	dir := t.TempDir()
	us := func(tg, s string) float64 {
		if tg == "rest" {
			return 120
		}
		return 40
	}
	hist := writeHistory(t, dir, "5cee000000000001", 5, us, []string{"grpc", "rest"}, []string{"load_table.latency", "table_exists.latency"})
	report := filepath.Join(dir, "report.html")
	if _, errOut, code := katbench(t, dir, "report", hist, "-o", report); code != 0 {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	shot := filepath.Join(dir, "report.png")
	if keep := os.Getenv("KATBENCH_SCREENSHOT_DIR"); keep != "" {
		shot = filepath.Join(keep, "report.png")
	}
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "scripts", "report-screenshot.sh"), report, shot, "1200,1400")
	if out, err := cmd.CombinedOutput(); err != nil {
		if _, lerr := exec.LookPath("chromium"); lerr != nil {
			testenv.Need(t, "chromium", lerr)
		}
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	colours := map[uint32]int{}
	nonWhite := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := (r>>8)<<16 | (g>>8)<<8 | bl>>8
			colours[c]++
			if c != 0xffffff {
				nonWhite++
			}
		}
	}
	total := b.Dx() * b.Dy()
	if len(colours) < 50 || nonWhite < total/50 {
		t.Fatalf("screenshot looks blank: %d colours, %d of %d pixels not white", len(colours), nonWhite, total)
	}
	for _, want := range []uint32{0x1f77b4, 0xd62728} { // the first two series
		if colours[want] < 20 {
			t.Fatalf("series colour %06x drawn on %d pixels", want, colours[want])
		}
	}
}
