package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var screenshot = flag.Bool("screenshot", false, "TestReportInBrowser: rewrite docs/report.png, the README's picture of the report")

// chromiumBinary finds the browser, or skips: developers without it can
// still run the suite, and CI (.ci/run) installs it.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary on PATH: this test renders the report in headless Chromium " +
		"(Debian: apt-get install -y chromium; .ci/run installs it)")
	return ""
}

// headless runs Chromium on a page without a profile, network or sandbox
// (the sandbox needs privileges a CI container lacks) and returns stdout.
func headless(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1400,1000"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// TestReportInBrowser renders the demo's report in headless Chromium and
// reads the DOM it built: with JavaScript, opening the address of a denied
// call's why trace opens that trace; without JavaScript the sessions and
// every trace are still on the page, in <details> elements.
func TestReportInBrowser(t *testing.T) {
	bin := chromiumBinary(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if _, errOut, err := runCLI(t, "", "report", "--scenario", demoScenario(t), "--html", page); err != nil {
		t.Fatalf("report: %v\n%s", err, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// The denials table links the reviewer's denied exec call to its trace.
	m := regexp.MustCompile(`<a class="tool no" href="#([^"]+)">exec</a>`).FindSubmatch(html)
	if m == nil {
		t.Fatal("the denials table has no link to the denied exec call")
	}
	target := string(m[1])
	url := "file://" + page

	dom := headless(t, bin, "--dump-dom", url+"#"+target)
	for _, want := range []string{
		"<h3>" + demoMain + "</h3>", "<h3>" + demoCoder + "</h3>", "<h3>" + demoReviewer + "</h3>",
		`<html lang="en" class="js">`, // the script ran
		`<td>agent</td><td>removed</td><td><code>agent:deny</code></td>`,
		`agents.list[2].tools.deny: "exec"`,
		`<button type="button">Open every why trace</button>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	tag := regexp.MustCompile(`<details[^>]*id="` + regexp.QuoteMeta(target) + `"[^>]*>`).FindString(dom)
	if !strings.Contains(tag, " open") || !strings.Contains(tag, "selected") {
		t.Errorf("opening #%s did not open and select its why trace: %s", target, tag)
	}

	// A reader without JavaScript: a copy of the page whose content
	// security policy blocks its script. (Disabling JavaScript in the
	// browser would also stop --dump-dom, which reads the DOM with it.)
	noJS := filepath.Join(filepath.Dir(page), "nojs.html")
	csp := `<head>` + "\n" + `<meta http-equiv="Content-Security-Policy" content="script-src 'none'">`
	if err := os.WriteFile(noJS, bytes.Replace(html, []byte("<head>"), []byte(csp), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := headless(t, bin, "--dump-dom", "file://"+noJS+"#"+target)
	if strings.Contains(plain, `class="js"`) || strings.Contains(plain, "<button") {
		t.Fatal("the script ran although the page's policy blocks scripts")
	}
	for _, want := range []string{demoMain, demoCoder, demoReviewer, `id="` + target + `"`, `<td>removed</td>`, "grant revoked"} {
		if !strings.Contains(plain, want) {
			t.Errorf("without JavaScript the page lacks %q", want)
		}
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	headless(t, bin, "--screenshot="+shot, url)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("no screenshot: %v", err)
	}
	if *screenshot {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
