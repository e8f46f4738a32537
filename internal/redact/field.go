package redact

// IsSecretField reports whether a field's name makes its value a secret,
// by the rule the `name: value` masker of String applies: the words of
// IsSecretName, plus KEY (sort_key counts; redaction errs that way) and
// PASSW (passwort, passwd).
func IsSecretField(name string) bool { return secretField(name) }

// Field masks value, the value of a field called name (a JSON object's
// "password" member), when the name looks secret: it returns Mask for a
// value of 4 bytes or more that is not masked already, and value as it is
// otherwise. String cannot see this where the name and the value are kept
// apart, as in a decoded JSON object.
func Field(name, value string) string {
	if len(value) < minValue || !secretValue(value) || !secretField(name) {
		return value
	}
	return Mask
}
