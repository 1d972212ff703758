//go:build !unix

package badgeropen

// lockDir cannot take Badger's directory lock here: empty log files are
// left to badger.Open.
func lockDir(string) (unlock func(), ok bool) { return nil, false }

// Held cannot tell a held lock here: the open reports it.
func Held(string) (holder string, held bool) { return "", false }
