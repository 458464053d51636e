package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Downloads: a browser context saves them in [Options.DownloadDir] under
// their GUIDs; when one ends the file is renamed after its suggested name
// and reported through [Options.OnDownload].

// Download is a finished (or failed) download.
type Download struct {
	URL      string `json:"url"`
	Path     string `json:"path,omitempty"`
	Filename string `json:"filename"`
	State    string `json:"state"` // completed | canceled
	Bytes    int64  `json:"bytes"`
}

// pendingDownload is a download that began and has not ended, keyed by its
// GUID in Manager.downloads.
type pendingDownload struct {
	tabID    string
	url      string
	filename string
}

// routeDownloads makes a browser context save its downloads in
// [Options.DownloadDir] under their GUIDs, with events (renamed by
// finishDownload), or refuse them when there is no such folder.
func (m *Manager) routeDownloads(ctx context.Context, id cdp.BrowserContextID) {
	params := browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: id}
	if m.opts.DownloadDir != "" {
		if err := os.MkdirAll(m.opts.DownloadDir, 0o700); err == nil {
			on := true
			params = browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName,
				BrowserContextID: id, DownloadPath: m.opts.DownloadDir, EventsEnabled: &on}
		}
	}
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, params); err != nil {
		m.logf("warn", "download behaviour: %v", err)
	}
}

// downloadWillBegin records a download that begins, with the tab whose frame
// started it.
func (m *Manager) downloadWillBegin(e *browser.EventDownloadWillBegin) {
	m.mu.Lock()
	t := m.byTarget[target.ID(e.FrameID)]
	p := &pendingDownload{url: e.URL, filename: safeFilename(e.SuggestedFilename)}
	if t != nil {
		p.tabID = t.id
	}
	m.downloads[e.GUID] = p
	m.mu.Unlock()
}

// downloadProgress finishes a download that ended (completed or canceled),
// off chromedp's reader goroutine.
func (m *Manager) downloadProgress(e *browser.EventDownloadProgress) {
	if e.State == browser.DownloadProgressStateInProgress {
		return
	}
	m.mu.Lock()
	p := m.downloads[e.GUID]
	delete(m.downloads, e.GUID)
	m.mu.Unlock()
	if p == nil {
		return
	}
	go m.finishDownload(e.GUID, p, e)
}

// finishDownload names the finished file after its suggested name and
// reports it.
func (m *Manager) finishDownload(guid string, p *pendingDownload, e *browser.EventDownloadProgress) {
	d := Download{URL: p.url, Filename: p.filename, State: string(e.State), Bytes: int64(e.ReceivedBytes)}
	src := filepath.Join(m.opts.DownloadDir, guid)
	if e.State == browser.DownloadProgressStateCompleted {
		dst := uniquePath(filepath.Join(m.opts.DownloadDir, p.filename))
		if err := os.Rename(src, dst); err != nil {
			m.logf("warn", "download %s: %v", p.url, err)
			dst = src
		}
		d.Path = dst
		m.logf("info", "download saved: %s (%d bytes) from %s", dst, d.Bytes, p.url)
	} else {
		os.Remove(src)
		m.logf("info", "download %s: %s", d.State, p.url)
	}
	if m.opts.OnDownload != nil {
		m.opts.OnDownload(p.tabID, d)
	}
}

// safeFilename keeps a suggested download name to one plain file name.
func safeFilename(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.TrimLeft(name, ".")
	if name == "" || name == "/" {
		return "download"
	}
	return name
}

// uniquePath adds " (N)" before the extension until path does not exist.
func uniquePath(path string) string {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return path
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for n := 1; ; n++ {
		p := fmt.Sprintf("%s (%d)%s", base, n, ext)
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
}
