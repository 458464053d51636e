//go:build (desktop || dev || production || bindings) && linux

package app

// webkit_version.go asks the WebKitGTK library the window runs on for its
// version (webkit_get_major_version & co.: the library loaded at run time,
// not the headers it was built against), for app_about. The pkg-config
// lines are Wails' own, so this links nothing Wails does not.

/*
#cgo linux pkg-config: gtk+-3.0
#cgo !webkit2_41 pkg-config: webkit2gtk-4.0
#cgo webkit2_41 pkg-config: webkit2gtk-4.1
#include <webkit2/webkit2.h>
*/
import "C"

import "fmt"

// webkitVersion is the running WebKitGTK's version, e.g. "2.50.6".
func webkitVersion() string {
	return fmt.Sprintf("%d.%d.%d", uint(C.webkit_get_major_version()), uint(C.webkit_get_minor_version()), uint(C.webkit_get_micro_version()))
}
