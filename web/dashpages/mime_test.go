package dashpages_test

import "mime"

// mimeWordDecoder decodes an RFC 2047 encoded header (a subject with
// non-ASCII characters).
type mimeWordDecoder struct{ mime.WordDecoder }
