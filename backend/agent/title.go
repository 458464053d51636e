package agent

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Auto-title bounds.
const (
	maxTitleWords = 3
	maxTitleChars = 28
)

// titleStopWords are dropped from auto-titles: articles, pronouns,
// prepositions, auxiliaries, politeness and the generic request verbs that
// start most prompts ("fix", "add", "make"…), so what is left names the
// subject.
var titleStopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		a an the this that these those there here some any all
		i me my mine we us our you your it its he she they them their
		to of in on at for from with without by about into onto over under as
		and or but so if then than
		is are was were be been being am do does did done have has had
		can could would should will shall may might must
		please pls kindly just also now still again
		help let lets want need like
		fix add make create update implement change write remove delete try
		how what why when where which who
		hi hello hey thanks thank ok okay
		dont doesnt didnt isnt arent wasnt cant couldnt wont wouldnt im ive
		http https www com
	`) {
		titleStopWords[w] = true
	}
}

// autoTitle derives a session title from the first prompt: at most 3 words
// and 28 characters, stop-words dropped, title-cased ("Fix login crash" →
// "Login Crash"); DefaultTitle when nothing is left.
func autoTitle(prompt string) string {
	var words []string
	for _, w := range strings.FieldsFunc(prompt, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		// Apostrophes join a word ("don't" → "dont"); other punctuation
		// splits words and is dropped.
		w = strings.Map(func(r rune) rune {
			if r == '\'' || r == '’' {
				return -1
			}
			return r
		}, w)
		if w == "" || titleStopWords[strings.ToLower(w)] {
			continue
		}
		words = append(words, titleCase(w))
		if len(words) == maxTitleWords {
			break
		}
	}
	title := ""
	for _, w := range words {
		next := w
		if title != "" {
			next = title + " " + w
		}
		if utf8.RuneCountInString(next) > maxTitleChars {
			if title == "" { // one long word: cut it
				title = cutRunes(w, maxTitleChars)
			}
			break
		}
		title = next
	}
	if title == "" {
		return DefaultTitle
	}
	return title
}

// titleCase upper-cases w's first letter and keeps the rest as typed
// ("login" → "Login", "iOS" → "IOS", "API" → "API").
func titleCase(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToTitle(r)) + w[n:]
}
