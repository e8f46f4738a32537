package mcpclient

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// guardedDialer refuses connections to addresses an MCP server URL has no
// business reaching: link-local addresses (where cloud metadata services
// answer, 169.254.169.254 and fe80::/10), multicast and unspecified ones.
// The check runs on the resolved address at connect time, so a hostname that
// resolves (or re-resolves) to such an address is refused too. Loopback and
// private ranges stay allowed: local MCP servers are the common case.
func guardedDialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: refuseUnsafeAddr}
}

func refuseUnsafeAddr(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("mcp http: refusing to dial unparsed address %q", address)
	}
	if reason := unsafeAddr(ip.Unmap()); reason != "" {
		return fmt.Errorf("mcp http: refusing to connect to %s: %s address", ip, reason)
	}
	return nil
}

func unsafeAddr(ip netip.Addr) string {
	switch {
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	return ""
}
