package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// section is a part of a site, in its URLs and breadcrumbs.
type section struct{ name, slug string }

// site is one web site: its language, name, host and template text, and
// the running state that makes its "related" lines drift as it grows.
type site struct {
	lang     string // "en" or "zh"
	name     string
	host     string
	sections []section
	nav      string   // navigation line at the top of every page
	footer   []string // lines at the bottom of every page
	people   []string // authors (en) or editors (zh): a few per site
	dated    bool     // whether pages show their publication time
	seed     uint64

	pages   int      // pages emitted so far
	window  int      // index of the first related title in related
	related []string // the titles the "related" lines pick from now
}

// Related lines stay on a site for a while and then give way to newer
// ones, like a "latest stories" box: pool titles at a time, the pool
// moving by one title every relatedEvery pages of the site.
const (
	relatedPool  = 8
	relatedShown = 3
	relatedEvery = 40
)

var (
	enCities   = []string{"Springfield", "Riverton", "Lakewood", "Fairview", "Oakdale", "Brookfield", "Greenville", "Clayton", "Milford", "Ashland", "Kingston", "Salem", "Hartwell", "Dover", "Marion", "Easton"}
	enPrefixes = []string{"Daily", "Morning", "Evening", "Weekly", "Metro", "Valley", "Coastal", "Northern", "Southern", "Capital", "Harbor", "Prairie"}
	enNouns    = []string{"Times", "Herald", "Tribune", "Post", "Gazette", "Chronicle", "Journal", "Observer", "Courier", "Review", "Ledger", "Dispatch", "Sentinel", "Monitor", "Wire", "Digest"}
	enSections = []section{{"World", "world"}, {"Politics", "politics"}, {"Business", "business"}, {"Tech", "tech"}, {"Science", "science"}, {"Health", "health"}, {"Sports", "sports"}, {"Culture", "culture"}, {"Opinion", "opinion"}, {"Travel", "travel"}, {"Local", "local"}, {"Education", "education"}}
	enFirst    = []string{"James", "Mary", "Robert", "Linda", "Michael", "Sarah", "David", "Emily", "Daniel", "Laura", "Kevin", "Rachel", "Brian", "Megan", "Steven", "Olivia"}
	enLast     = []string{"Smith", "Johnson", "Lee", "Brown", "Garcia", "Miller", "Davis", "Wilson", "Moore", "Taylor", "Clark", "Lewis", "Walker", "Young", "Hall", "Allen"}

	zhPlaces = []struct{ name, py string }{{"南方", "nanfang"}, {"北京", "beijing"}, {"东方", "dongfang"}, {"华夏", "huaxia"}, {"江南", "jiangnan"}, {"西部", "xibu"}, {"中原", "zhongyuan"}, {"滨海", "binhai"}, {"长江", "changjiang"}, {"珠江", "zhujiang"}, {"燕赵", "yanzhao"}, {"齐鲁", "qilu"}, {"巴蜀", "bashu"}, {"湖湘", "huxiang"}, {"闽南", "minnan"}, {"天山", "tianshan"}}
	zhKinds  = []struct{ name, py string }{{"日报", "daily"}, {"晚报", "wb"}, {"晨报", "cb"}, {"时报", "times"}, {"新闻网", "news"}, {"在线", "online"}, {"周刊", "weekly"}, {"快讯", "kx"}, {"资讯网", "info"}, {"商报", "sb"}}
	zhSects  = []section{{"新闻", "news"}, {"国内", "china"}, {"国际", "world"}, {"财经", "finance"}, {"科技", "tech"}, {"体育", "sports"}, {"娱乐", "ent"}, {"教育", "edu"}, {"健康", "health"}, {"汽车", "auto"}, {"房产", "house"}, {"文化", "culture"}}
	zhSurn   = []string{"王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭"}
	zhGiven  = []string{"伟", "芳", "娜", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟", "涛", "明", "超", "秀英", "霞", "平"}
)

// newSites makes n sites, alternately English and Chinese, with distinct
// hosts.
func newSites(n int, seed uint64) []*site {
	sites := make([]*site, 0, n)
	hosts := map[string]bool{}
	for i := range n {
		r := rng(seed, saltSite, uint64(i))
		s := &site{seed: r.Uint64(), dated: r.IntN(2) == 0}
		pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
		if i%2 == 0 {
			s.lang = "en"
			var host string
			if r.IntN(2) == 0 {
				city, noun := pick(enCities), pick(enNouns)
				s.name, host = city+" "+noun, strings.ToLower(city+noun)
			} else {
				pre, noun := pick(enPrefixes), pick(enNouns)
				s.name, host = "The "+pre+" "+noun, strings.ToLower(pre+noun)
			}
			s.host = uniqueHost(hosts, "www."+host, ".com", i)
			s.sections = pickSections(r, enSections)
			var nav []string
			nav = append(nav, "Home")
			for _, sec := range s.sections {
				nav = append(nav, sec.name)
			}
			nav = append(nav, pick([]string{"Subscribe", "Newsletters", "Sign In", "Podcasts"}))
			s.nav = strings.Join(nav, " | ")
			s.footer = []string{
				fmt.Sprintf("© %d %s. All rights reserved.", 2015+r.IntN(10), s.name),
				pick([]string{"About Us | Contact | Advertise | Privacy Policy | Terms of Service", "Contact Us | Careers | Privacy | Terms of Use | Sitemap", "About | Ethics Policy | Corrections | Privacy Notice | Cookie Settings"}),
			}
			if r.IntN(2) == 0 {
				s.footer = append(s.footer, fmt.Sprintf("Get the %s newsletter: the day's top stories in your inbox every morning.", s.name))
			}
			for range 3 + r.IntN(5) {
				s.people = append(s.people, pick(enFirst)+" "+pick(enLast))
			}
		} else {
			s.lang = "zh"
			place, kind := zhPlaces[r.IntN(len(zhPlaces))], zhKinds[r.IntN(len(zhKinds))]
			s.name = place.name + kind.name
			s.host = uniqueHost(hosts, "www."+place.py+kind.py, pick([]string{".com.cn", ".cn", ".com"}), i)
			s.sections = pickSections(r, zhSects)
			nav := []string{"首页"}
			for _, sec := range s.sections {
				nav = append(nav, sec.name)
			}
			s.nav = strings.Join(nav, " | ")
			s.footer = []string{
				fmt.Sprintf("版权所有 © %d %s 未经书面授权不得转载", 2005+r.IntN(19), s.name),
				pick([]string{"关于我们 | 联系我们 | 广告服务 | 网站地图 | 法律声明", "网站简介 | 广告刊例 | 联系方式 | 招聘信息 | 隐私政策", "关于本站 | 投稿须知 | 违法和不良信息举报 | 网站导航"}),
			}
			if r.IntN(2) == 0 {
				s.footer = append(s.footer, fmt.Sprintf("扫描二维码关注%s官方微信，获取更多资讯。", s.name))
			}
			for range 3 + r.IntN(5) {
				s.people = append(s.people, pick(zhSurn)+pick(zhGiven))
			}
		}
		sites = append(sites, s)
	}
	return sites
}

// uniqueHost returns base+tld, or base with the site's number when a
// site before took that host.
func uniqueHost(seen map[string]bool, base, tld string, i int) string {
	h := base + tld
	if seen[h] {
		h = fmt.Sprintf("%s%d%s", base, i, tld)
	}
	seen[h] = true
	return h
}

func pickSections(r *rand.Rand, all []section) []section {
	idx := r.Perm(len(all))[:5+r.IntN(4)]
	out := make([]section, len(idx))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// siteWeights are the relative sizes of a language's sites: a Zipf-like
// spread (a few big sites, many small ones), as in real crawls.
func siteWeights(n int) []float64 {
	cum := make([]float64, n)
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), 0.7)
		cum[i] = total
	}
	for i := range cum {
		cum[i] /= total
	}
	return cum
}

// pickWeighted draws an index from cumulative weights cum.
func pickWeighted(r *rand.Rand, cum []float64) int {
	x := r.Float64()
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
