package indexer

import (
	"maps"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"
)

// NewMapping is the default bleve mapping: title and text analysed with
// bleve's CJK analyzer (Unicode words, Han bigrams: English and Chinese
// alike), url and cluster as stored keywords. Extra fields given in
// Document.Fields are mapped dynamically.
//
// The text is indexed with term positions (for phrases) but not stored,
// without doc values, and not copied into bleve's composite "_all" field:
// queries name the fields (Index.SearchFields, which boolquery spreads
// unqualified terms over in both syntaxes). The dedup store already keeps each
// document's text (Index.Doc), and those copies cost more than the filter
// itself. BenchmarkMapping, plain bleve on the extracted development pages
// with merges settled: 4.1 ms of CPU and 11.8 KB on disk per page with
// this mapping, 9.3 ms and 27.5 KB with bleve's text-field defaults (both
// in batches of 1,000; 6.2 and 12.6 ms in batches of 200), 2.9 ms with
// bleve's default mapping, whose standard analyzer makes no Han bigrams.
// The title is small and stored, for result lists.
func NewMapping() *mapping.IndexMappingImpl {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = cjk.AnalyzerName
	text.Store = false
	text.DocValues = false
	text.IncludeInAll = false
	title := bleve.NewTextFieldMapping()
	title.Analyzer = cjk.AnalyzerName
	title.IncludeInAll = false
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.IncludeInAll = false

	doc := bleve.NewDocumentMapping()
	doc.AddFieldMappingsAt(FieldTitle, title)
	doc.AddFieldMappingsAt(FieldText, text)
	doc.AddFieldMappingsAt(FieldURL, kw)
	doc.AddFieldMappingsAt(FieldCluster, kw)

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = cjk.AnalyzerName
	m.DefaultField = FieldText
	return m
}

// AddFilterFields adds to m what the filter needs of a user's mapping,
// leaving the user's own fields as they are: FieldCluster, a stored
// keyword with doc values (collapsing reads it; queries and facets on
// it see whole cluster ids), left out of "_all", in the default document
// mapping and in every type's; and, where a mapping does not map it
// already, FieldText, where an HTMLField's main text is written: analysed
// as NewMapping's text (words, and Han bigrams for Chinese), stored for
// highlights, in "_all". A query on "_all" is analysed with m's
// DefaultAnalyzer: set it to the same (cjk.AnalyzerName) for Chinese
// queries to find what FieldText holds. Call it before the index is made
// (bleve keeps a mapping from then on); an Index over a bleve index whose
// dynamic mapping takes unknown fields needs it less, but its cluster
// field is then analysed text.
func AddFilterFields(m *mapping.IndexMappingImpl) {
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.IncludeInAll = false
	text := bleve.NewTextFieldMapping()
	text.Analyzer = cjk.AnalyzerName
	for _, dm := range append([]*mapping.DocumentMapping{m.DefaultMapping}, slices.Collect(maps.Values(m.TypeMapping))...) {
		dm.AddFieldMappingsAt(FieldCluster, kw)
		if _, mapped := dm.Properties[FieldText]; !mapped {
			dm.AddFieldMappingsAt(FieldText, text)
		}
	}
}
