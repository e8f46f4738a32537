package kubetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the plane's certificates and keys, as files in one directory: a
// CA that signs every serving and client certificate, and the service
// account signing key pair.
type pki struct {
	dir string
	ca  *x509.Certificate
	key *ecdsa.PrivateKey
}

// The files pki writes, by name under its directory.
const (
	caCert        = "ca.crt"
	apiserverCert = "apiserver" // .crt and .key
	adminCert     = "admin"
	kubeletClient = "kubelet-client"
	nodeCert      = "node"
	saKey         = "sa.key"
	saPub         = "sa.pub"
)

func newPKI(dir string) (*pki, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "odek-test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir, ca: ca, key: key}
	if err := writePEM(p.path(caCert), "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return p, p.writeAll()
}

func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }

func (p *pki) writeAll() error {
	serving := []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")}
	steps := []struct {
		name   string
		cn     string
		orgs   []string
		dns    []string
		ips    []net.IP
		server bool
	}{
		{apiserverCert, "kube-apiserver", nil, serving, loopback, true},
		{adminCert, "odek-test-admin", []string{"system:masters"}, nil, nil, false},
		{kubeletClient, "kube-apiserver-kubelet-client", []string{"system:masters"}, nil, nil, false},
		{nodeCert, nodeName, nil, []string{nodeName, "localhost"}, loopback[:1], true},
	}
	for i, s := range steps {
		if err := p.issue(int64(i+2), s.name, s.cn, s.orgs, s.dns, s.ips, s.server); err != nil {
			return err
		}
	}
	sa, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(sa)
	if err != nil {
		return err
	}
	if err := writePEM(p.path(saKey), "EC PRIVATE KEY", der); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return err
	}
	return writePEM(p.path(saPub), "PUBLIC KEY", pub)
}

// issue writes name.crt and name.key, signed by the CA.
func (p *pki) issue(serial int64, name, cn string, orgs, dns []string, ips []net.IP, server bool) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	usage := x509.ExtKeyUsageClientAuth
	if server {
		usage = x509.ExtKeyUsageServerAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	if err != nil {
		return err
	}
	if err := writePEM(p.path(name+".crt"), "CERTIFICATE", der); err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(p.path(name+".key"), "EC PRIVATE KEY", kder)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
