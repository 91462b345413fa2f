#include "opkit/elf/symbol_table.hpp"

#include <algorithm>
#include <numeric>

namespace opkit::elf {

MemorySymbolTable::MemorySymbolTable(std::vector<ExportedSymbol> symbols)
  : m_symbols(std::move(symbols))
  , m_by_name(m_symbols.size())
{
  std::iota(m_by_name.begin(), m_by_name.end(), size_t{0});
  std::stable_sort(m_by_name.begin(), m_by_name.end(),
                   [this](size_t a, size_t b) { return m_symbols[a].name < m_symbols[b].name; });
}

std::vector<SymbolDefinition>
MemorySymbolTable::find(std::string_view name) const
{
  auto first = std::lower_bound(m_by_name.begin(), m_by_name.end(), name,
                                [this](size_t index, std::string_view key) { return m_symbols[index].name < key; });
  std::vector<SymbolDefinition> found;
  for (auto it = first; it != m_by_name.end() && m_symbols[*it].name == name; ++it) {
    found.push_back({m_symbols[*it].version, m_symbols[*it].hidden});
  }
  return found;
}

void
MemorySymbolTable::for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const
{
  for (const ExportedSymbol& symbol : m_symbols) {
    visit(symbol.name, {symbol.version, symbol.hidden});
  }
}

NameListTable::NameListTable(std::string_view text)
{
  m_names.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line[0] != '#') {
      m_names.push_back(line);
    }
    start = end + 1;
  }
  if (!std::is_sorted(m_names.begin(), m_names.end())) {
    std::sort(m_names.begin(), m_names.end());
  }
}

OnFirstUseTable::OnFirstUseTable(std::function<std::shared_ptr<const SymbolTable>()> make)
  : m_make(std::move(make))
{
}

const SymbolTable&
OnFirstUseTable::table() const
{
  std::call_once(m_once, [this] { m_table = m_make(); });
  return *m_table;
}

std::vector<SymbolDefinition>
NameListTable::find(std::string_view name) const
{
  auto [first, last] = std::equal_range(m_names.begin(), m_names.end(), name);
  return std::vector<SymbolDefinition>(static_cast<size_t>(last - first));
}

void
NameListTable::for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const
{
  for (std::string_view name : m_names) {
    visit(name, {});
  }
}

ExportedSymbols::ExportedSymbols()
{
  // Policy libraries export nothing known; they all share one empty table.
  static const std::shared_ptr<const SymbolTable> k_empty =
    std::make_shared<MemorySymbolTable>(std::vector<ExportedSymbol>());
  m_table = k_empty;
}

ExportedSymbols::ExportedSymbols(std::vector<ExportedSymbol> symbols)
  : m_table(std::make_shared<MemorySymbolTable>(std::move(symbols)))
{
}

ExportedSymbols::ExportedSymbols(std::initializer_list<ExportedSymbol> symbols)
  : ExportedSymbols(std::vector<ExportedSymbol>(symbols))
{
}

ExportedSymbols::ExportedSymbols(std::shared_ptr<const SymbolTable> table)
  : m_table(std::move(table))
{
}

} // namespace opkit::elf
