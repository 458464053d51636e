package template

import "net"

// listenLocal listens on a free port of 127.0.0.1.
func listenLocal() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
