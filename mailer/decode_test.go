package mailer_test

import "mime"

type mimeDecoder struct{ mime.WordDecoder }

func (d *mimeDecoder) decode(s string) (string, error) { return d.DecodeHeader(s) }
