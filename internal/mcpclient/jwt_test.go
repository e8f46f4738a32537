package mcpclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

func pemOf(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// An assertion made from each kind of key verifies with the key's public
// half under the JWS algorithm its header names (each curve with its own
// hash), and says what RFC 7523 asks: issuer and subject the client, the
// audience the authorization server, a two-minute life.
func TestAssertionSignaturesAndClaims(t *testing.T) {
	t.Parallel()
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	rsa2048, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	for alg, key := range map[string]crypto.Signer{"ES256": p256, "ES384": p384, "ES512": p521, "RS256": rsa2048} {
		s, err := parseSigner(pemOf(t, key), "k1")
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		jwt, err := s.assertion("ci", "https://as.example/", now)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		parts := strings.Split(jwt, ".")
		if len(parts) != 3 {
			t.Fatalf("%s: %q", alg, jwt)
		}
		var header struct{ Alg, Kid string }
		var claims struct {
			Iss, Sub, Aud, Jti string
			Iat, Exp           int64
		}
		h, _ := base64.RawURLEncoding.DecodeString(parts[0])
		c, _ := base64.RawURLEncoding.DecodeString(parts[1])
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		_ = json.Unmarshal(h, &header)
		_ = json.Unmarshal(c, &claims)
		if header.Alg != alg || header.Kid != "k1" {
			t.Errorf("%s: header %+v", alg, header)
		}
		if claims.Iss != "ci" || claims.Sub != "ci" || claims.Aud != "https://as.example/" || claims.Jti == "" ||
			claims.Iat != now.Unix() || claims.Exp != now.Add(2*time.Minute).Unix() {
			t.Errorf("%s: claims %+v", alg, claims)
		}
		if !verifyJWS(key.Public(), alg, []byte(parts[0]+"."+parts[1]), sig) {
			t.Errorf("%s: the signature does not verify", alg)
		}
	}
}

// verifyJWS checks a JWS signature as RFC 7518 section 3 defines it.
func verifyJWS(pub crypto.PublicKey, alg string, input, sig []byte) bool {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		d := sha256.Sum256(input)
		return alg == "RS256" && rsa.VerifyPKCS1v15(k, crypto.SHA256, d[:], sig) == nil
	case *ecdsa.PublicKey:
		var d []byte
		switch alg {
		case "ES256":
			x := sha256.Sum256(input)
			d = x[:]
		case "ES384":
			x := sha512.Sum384(input)
			d = x[:]
		case "ES512":
			x := sha512.Sum512(input)
			d = x[:]
		}
		n := (k.Curve.Params().BitSize + 7) / 8
		return len(sig) == 2*n && ecdsa.Verify(k, d, new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:]))
	}
	return false
}

// An RSA key under 2048 bits is refused.
func TestAssertionRefusesShortRSAKey(t *testing.T) {
	t.Parallel()
	short, err := rsa.GenerateKey(rand.Reader, 1536)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseSigner(pemOf(t, short), ""); err == nil || !strings.Contains(err.Error(), "1536 bits") {
		t.Errorf("a 1536-bit RSA key: %v, want it refused", err)
	}
}
