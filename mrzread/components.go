package mrzread

// comp is a connected component of dark pixels (8-connectivity).
type comp struct {
	x0, y0, x1, y1 int // bounding box, max exclusive
	area           int
}

func (c *comp) w() int           { return c.x1 - c.x0 }
func (c *comp) h() int           { return c.y1 - c.y0 }
func (c *comp) cx() float64      { return float64(c.x0+c.x1) / 2 }
func (c *comp) bottom() float64  { return float64(c.y1) }
func (c *comp) centreY() float64 { return float64(c.y0+c.y1) / 2 }

// components labels the dark pixels of bin (w×h) by union-find over
// horizontal runs.
func components(bin []uint8, w, h int) []comp {
	type run struct {
		x0, x1 int32 // [x0, x1)
		y      int32
		label  int32
	}
	var runs []run
	var parent []int32
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra != rb {
			if ra < rb {
				parent[rb] = ra
			} else {
				parent[ra] = rb
			}
		}
	}
	prevStart, prevEnd := 0, 0
	for y := 0; y < h; y++ {
		row := bin[y*w : (y+1)*w]
		curStart := len(runs)
		for x := 0; x < w; {
			if row[x] == 0 {
				x++
				continue
			}
			x0 := x
			for x < w && row[x] != 0 {
				x++
			}
			l := int32(len(parent))
			parent = append(parent, l)
			runs = append(runs, run{int32(x0), int32(x), int32(y), l})
		}
		// Union with overlapping runs of the previous row (8-connected:
		// touching diagonally counts).
		p := prevStart
		for i := curStart; i < len(runs); i++ {
			r := runs[i]
			for p < prevEnd && runs[p].x1 < r.x0 {
				p++
			}
			for q := p; q < prevEnd && runs[q].x0 <= r.x1; q++ {
				union(r.label, runs[q].label)
			}
		}
		prevStart, prevEnd = curStart, len(runs)
	}
	index := make([]int32, len(parent))
	for i := range index {
		index[i] = -1
	}
	var cs []comp
	for _, r := range runs {
		root := find(r.label)
		k := index[root]
		if k < 0 {
			k = int32(len(cs))
			index[root] = k
			cs = append(cs, comp{x0: int(r.x0), y0: int(r.y), x1: int(r.x1), y1: int(r.y) + 1})
		}
		c := &cs[k]
		c.x0 = min(c.x0, int(r.x0))
		c.x1 = max(c.x1, int(r.x1))
		c.y1 = max(c.y1, int(r.y)+1)
		c.area += int(r.x1 - r.x0)
	}
	return cs
}
