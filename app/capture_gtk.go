//go:build (desktop || dev || production || bindings) && linux

package app

// capture_gtk.go captures the app window for app_screenshot: on the GTK
// main loop it finds meith's visible top-level window, reads its pixels
// with gdk_pixbuf_get_from_window and encodes them as PNG. Nothing outside
// the process is involved (no screenshot tool, no X11 client of its own).

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <stdint.h>

extern void meithCaptureDone(uintptr_t handle, gchar *buf, gsize size, char *err);

static gboolean meith_capture_idle(gpointer data) {
	uintptr_t handle = (uintptr_t)data;
	GList *tops = gtk_window_list_toplevels();
	GtkWidget *best = NULL;
	int bestArea = 0;
	for (GList *l = tops; l != NULL; l = l->next) {
		GtkWidget *w = GTK_WIDGET(l->data);
		if (!gtk_widget_get_visible(w) || gtk_window_get_window_type(GTK_WINDOW(w)) != GTK_WINDOW_TOPLEVEL) {
			continue;
		}
		int area = gtk_widget_get_allocated_width(w) * gtk_widget_get_allocated_height(w);
		if (gtk_widget_get_window(w) != NULL && area > bestArea) {
			best = w;
			bestArea = area;
		}
	}
	g_list_free(tops);
	if (best == NULL) {
		meithCaptureDone(handle, NULL, 0, "the window is not shown yet");
		return G_SOURCE_REMOVE;
	}
	GdkWindow *gw = gtk_widget_get_window(best);
	int width = gdk_window_get_width(gw);
	int height = gdk_window_get_height(gw);
	GdkPixbuf *pb = gdk_pixbuf_get_from_window(gw, 0, 0, width, height);
	if (pb == NULL) {
		meithCaptureDone(handle, NULL, 0, "the window's pixels could not be read (is it mapped?)");
		return G_SOURCE_REMOVE;
	}
	gchar *buf = NULL;
	gsize size = 0;
	GError *err = NULL;
	gboolean ok = gdk_pixbuf_save_to_buffer(pb, &buf, &size, "png", &err, NULL);
	g_object_unref(pb);
	if (!ok) {
		meithCaptureDone(handle, NULL, 0, err != NULL ? err->message : "PNG encoding failed");
		if (err != NULL) g_error_free(err);
		return G_SOURCE_REMOVE;
	}
	meithCaptureDone(handle, buf, size, NULL);
	g_free(buf);
	return G_SOURCE_REMOVE;
}

static void meith_capture_schedule(uintptr_t handle) {
	g_idle_add(meith_capture_idle, (gpointer)handle);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// captureResult is what the main loop hands back to captureWindow.
type captureResult struct {
	png []byte
	err error
}

//export meithCaptureDone
func meithCaptureDone(handle C.uintptr_t, buf *C.gchar, size C.gsize, cerr *C.char) {
	h := cgo.Handle(handle)
	ch := h.Value().(chan captureResult)
	h.Delete()
	if cerr != nil {
		ch <- captureResult{err: errors.New(C.GoString(cerr))}
		return
	}
	ch <- captureResult{png: C.GoBytes(unsafe.Pointer(buf), C.int(size))}
}

// captureWindow returns a PNG of the app window. It runs the capture on the
// GTK main loop and waits for it until ctx ends.
func captureWindow(ctx context.Context) ([]byte, error) {
	ch := make(chan captureResult, 1) // buffered: a late result never blocks the main loop
	C.meith_capture_schedule(C.uintptr_t(cgo.NewHandle(ch)))
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("capture window: %w", r.err)
		}
		return r.png, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("capture window: %w", ctx.Err())
	}
}
