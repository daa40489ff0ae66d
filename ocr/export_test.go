package ocr

// ResidentPIDs returns the process ids of t's idle resident programs,
// and how many are running in all (idle and busy).
func (t *Tesseract) ResidentPIDs() ([]int, int) {
	p := t.residents
	if p == nil {
		return nil, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var pids []int
	for _, rs := range p.idle {
		for _, r := range rs {
			pids = append(pids, r.cmd.Process.Pid)
		}
	}
	return pids, p.n
}

// ResidentDir is the directory of t's page files ("" before first use).
func (t *Tesseract) ResidentDir() string {
	if t.residents == nil {
		return ""
	}
	return t.residents.dir
}
