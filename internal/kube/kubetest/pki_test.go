package kubetest

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"slices"
	"testing"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM block", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The plane's certificates chain to its CA for what each is used for: the
// API server and the node serve 127.0.0.1, the admin and the API server's
// kubelet client are cluster admins (system:masters).
func TestPKI(t *testing.T) {
	t.Parallel()
	p, err := newPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(p.ca)
	tests := []struct {
		name   string
		usage  x509.ExtKeyUsage
		host   string
		admins bool
	}{
		{apiserverCert, x509.ExtKeyUsageServerAuth, "127.0.0.1", false},
		{apiserverCert, x509.ExtKeyUsageServerAuth, "kubernetes.default.svc", false},
		{nodeCert, x509.ExtKeyUsageServerAuth, "127.0.0.1", false},
		{adminCert, x509.ExtKeyUsageClientAuth, "", true},
		{kubeletClient, x509.ExtKeyUsageClientAuth, "", true},
	}
	for _, tt := range tests {
		c := readCert(t, p.path(tt.name+".crt"))
		opts := x509.VerifyOptions{Roots: roots, DNSName: tt.host, KeyUsages: []x509.ExtKeyUsage{tt.usage}}
		if _, err := c.Verify(opts); err != nil {
			t.Errorf("%s for %q: %v", tt.name, tt.host, err)
		}
		if got := slices.Contains(c.Subject.Organization, "system:masters"); got != tt.admins {
			t.Errorf("%s in system:masters = %v, want %v", tt.name, got, tt.admins)
		}
	}
	for _, f := range []string{saKey, saPub, adminCert + ".key"} {
		if _, err := os.Stat(p.path(f)); err != nil {
			t.Error(err)
		}
	}
}
