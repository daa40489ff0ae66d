package smtptest

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime/quotedprintable"
	"strings"
)

func quotedPrintable(b []byte) io.Reader { return quotedprintable.NewReader(bytes.NewReader(b)) }

func decodeBase64(b []byte) string {
	out, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(b)), ""))
	if err != nil {
		return string(b)
	}
	return string(out)
}
