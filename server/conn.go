package server

import (
	"bytes"
	"net"
)

// securityListener gives the answers net/http writes without calling the
// handler (400 for a malformed request, 431 past its header limit, 417,
// 501, the reply to OPTIONS *) the headers ServeHTTP sets on the others.
type securityListener struct{ net.Listener }

func (l securityListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return securityConn{c}, nil
}

type securityConn struct{ net.Conn }

// securityBlock is what goes after the status line of an answer that
// lacks it.
var securityBlock = func() []byte {
	var b []byte
	for _, h := range securityHeaders {
		b = append(b, h[0]+": "+h[1]+"\r\n"...)
	}
	return b
}()

// marker is a header every answer of ServeHTTP has.
var marker = []byte("\r\n" + securityHeaders[1][0] + ": ")

// Write adds the security headers to a response head that lacks them.
// net/http writes such a head in one piece at the start of a write (its
// own errors with one Fprintf, others in a flush of an empty buffer); a
// write that is a body's middle cannot look like one, because a status
// line ends with CRLF and the server's bodies (JSON, its static files)
// have no bare CR.
func (c securityConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.")) || len(p) < len("HTTP/1.1 200 \r\n") || p[9] == '1' { // 1xx: interim
		return c.Conn.Write(p)
	}
	head, _, ok := bytes.Cut(p, []byte("\r\n\r\n"))
	line := bytes.IndexByte(head, '\n')
	if !ok || line < 0 || bytes.Contains(head, marker) {
		return c.Conn.Write(p)
	}
	out := make([]byte, 0, len(p)+len(securityBlock))
	out = append(out, p[:line+1]...)
	out = append(out, securityBlock...)
	out = append(out, p[line+1:]...)
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite half-closes the connection, as net/http does before closing
// one whose request body it did not read to the end, so that a client
// still sending reads the answer before the connection is reset.
func (c securityConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
