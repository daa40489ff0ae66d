package layout

import (
	"fmt"
	"net/http"

	"golang.org/x/text/language"
)

// The pages speak English, German and French: ?lang= wins, then the
// browser's Accept-Language, then English.
var (
	tags    = []language.Tag{language.English, language.German, language.French}
	matcher = language.NewMatcher(tags)
)

// Languages are the page languages, by base code, in the order of the
// language links.
var Languages = []struct{ Code, Name string }{{"en", "English"}, {"de", "Deutsch"}, {"fr", "Français"}}

// Tags are Languages as language tags.
func Tags() []language.Tag { return append([]language.Tag(nil), tags...) }

// Lang picks the page language and reports whether ?lang= chose it (links
// then carry it on).
func Lang(r *http.Request) (lang string, explicit bool) {
	if q := r.URL.Query().Get("lang"); q != "" {
		if t, err := language.Parse(q); err == nil {
			if _, i, conf := matcher.Match(t); conf >= language.High {
				return baseOf(i), true
			}
		}
	}
	acceptable, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, i, conf := matcher.Match(acceptable...)
	if conf == language.No {
		return "en", false
	}
	return baseOf(i), false
}

func baseOf(i int) string {
	b, _ := tags[i].Base()
	return b.String()
}

// LangLink is one link of the frame's language list.
type LangLink struct {
	Code, Name, URL string
	Current         bool
}

// LangLinks are the frame's language links: to link(code) for each
// language, current marked.
func LangLinks(current string, link func(lang string) string) []LangLink {
	out := make([]LangLink, 0, len(Languages))
	for _, l := range Languages {
		out = append(out, LangLink{Code: l.Code, Name: l.Name, URL: link(l.Code), Current: l.Code == current})
	}
	return out
}

// QueryLink is a LangLinks link to page with ?lang=.
func QueryLink(page string) func(lang string) string {
	return func(lang string) string { return page + "?lang=" + lang }
}

// Catalog holds a page set's texts by language then key.
type Catalog map[string]map[string]string

// Msg returns the text of key in lang (English when missing, the key
// itself when English lacks it too), formatted with args when there are
// any.
func (c Catalog) Msg(lang, key string, args ...any) string {
	s, ok := c[lang][key]
	if !ok {
		s, ok = c["en"][key]
	}
	if !ok {
		return key
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// Merge returns one catalog holding the texts of all; a key defined twice
// for a language is a programming error and panics.
func Merge(catalogs ...Catalog) Catalog {
	out := Catalog{}
	for _, c := range catalogs {
		for lang, texts := range c {
			if out[lang] == nil {
				out[lang] = map[string]string{}
			}
			for k, v := range texts {
				if _, dup := out[lang][k]; dup {
					panic(fmt.Sprintf("layout: catalog key %s/%s defined twice", lang, k))
				}
				out[lang][k] = v
			}
		}
	}
	return out
}

// Texts are the frame's own texts (layout.html); a page set's catalog
// merges them.
var Texts = Catalog{
	"en": {"lang_label": "Language", "sandbox_banner": "Sandbox – test mode"},
	"de": {"lang_label": "Sprache", "sandbox_banner": "Sandbox – Testmodus"},
	"fr": {"lang_label": "Langue", "sandbox_banner": "Sandbox – mode test"},
}
