package mcpclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"time"
)

// assertionSigner signs RFC 7523 client assertions with a private key from
// a PEM file: RS256 for RSA, ES256/ES384/ES512 for ECDSA P-256/384/521,
// EdDSA for Ed25519. The standard library is enough for all of them.
type assertionSigner struct {
	key crypto.Signer
	alg string
	kid string
}

// maxKeyFile bounds a private key file odek reads.
const maxKeyFile = 64 << 10

// parseSigner reads a PEM private key (PKCS #8, PKCS #1 or SEC 1).
func parseSigner(pemBytes []byte, kid string) (*assertionSigner, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, err
	}
	s := &assertionSigner{kid: kid}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("RSA key of %d bits: at least 2048 are needed", k.N.BitLen())
		}
		s.key, s.alg = k, "RS256"
	case *ecdsa.PrivateKey:
		alg, ok := map[elliptic.Curve]string{elliptic.P256(): "ES256", elliptic.P384(): "ES384", elliptic.P521(): "ES512"}[k.Curve]
		if !ok {
			return nil, errors.New("ECDSA key on a curve other than P-256, P-384 or P-521")
		}
		s.key, s.alg = k, alg
	case ed25519.PrivateKey:
		s.key, s.alg = k, "EdDSA"
	default:
		return nil, fmt.Errorf("unsupported private key type %T", key)
	}
	return s, nil
}

// assertion builds a signed JWT that authenticates clientID to the
// authorization server audience (RFC 7523 section 3): iss and sub are the
// client, a short expiry and a random jti make it single-use.
func (s *assertionSigner) assertion(clientID, audience string, now time.Time) (string, error) {
	header := map[string]string{"alg": s.alg, "typ": "JWT"}
	if s.kid != "" {
		header["kid"] = s.kid
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims := map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(2 * time.Minute).Unix(), "jti": hex.EncodeToString(jti)}
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64(h) + "." + b64(c)
	sig, err := s.sign([]byte(input))
	if err != nil {
		return "", err
	}
	return input + "." + b64(sig), nil
}

// sign makes the JWS signature of input for s.alg.
func (s *assertionSigner) sign(input []byte) ([]byte, error) {
	switch k := s.key.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(k, input), nil
	case *rsa.PrivateKey:
		d := sha256.Sum256(input)
		return rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
	case *ecdsa.PrivateKey:
		var h hash.Hash
		switch s.alg {
		case "ES256":
			h = sha256.New()
		case "ES384":
			h = sha512.New384()
		default:
			h = sha512.New()
		}
		h.Write(input)
		r, sv, err := ecdsa.Sign(rand.Reader, k, h.Sum(nil))
		if err != nil {
			return nil, err
		}
		// JWS wants R and S as fixed-size big-endian halves, not ASN.1.
		n := (k.Curve.Params().BitSize + 7) / 8
		out := make([]byte, 2*n)
		r.FillBytes(out[:n])
		sv.FillBytes(out[n:])
		return out, nil
	}
	return nil, fmt.Errorf("unsupported key %T", s.key)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
