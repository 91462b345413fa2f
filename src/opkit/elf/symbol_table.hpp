#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::elf {

// A symbol a library exports: defined, global or weak, default visibility.
struct ExportedSymbol
{
  std::string name;
  std::string version; // empty when unversioned
  bool hidden = false; // name@version (compat) rather than name@@version
};

// One definition of a name. A library may define a name once per version
// (memcpy@GLIBC_2.2.5 and memcpy@@GLIBC_2.14); the views live as long as the table.
struct SymbolDefinition
{
  std::string_view version; // empty when unversioned
  bool hidden = false;
};

// The symbols one library exports, looked up by name: kept in memory, or a
// mapped index file (elf/symbol_index). Immutable once made.
class SymbolTable
{
public:
  virtual ~SymbolTable() = default;
  virtual size_t size() const = 0;
  // Every definition of `name`; empty when the library does not export it.
  virtual std::vector<SymbolDefinition> find(std::string_view name) const = 0;
  // Visits every exported symbol, in the table's own order.
  virtual void for_each(const std::function<void(std::string_view name, const SymbolDefinition&)>& visit) const = 0;
  // Visits the symbols whose name `wanted` accepts: for a mapped index, only
  // those are checked, which is what makes a search of a large one cheap.
  virtual void for_each_matching(const std::function<bool(std::string_view name)>& wanted,
                                 const std::function<void(std::string_view name, const SymbolDefinition&)>& visit) const
  {
    for_each([&](std::string_view name, const SymbolDefinition& definition) {
      if (wanted(name)) {
        visit(name, definition);
      }
    });
  }
};

// The table of exported symbols read into memory (from an ELF file or a
// captured profile), sorted by name for lookups.
class MemorySymbolTable : public SymbolTable
{
public:
  explicit MemorySymbolTable(std::vector<ExportedSymbol> symbols);
  size_t size() const override { return m_symbols.size(); }
  std::vector<SymbolDefinition> find(std::string_view name) const override;
  void for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const override;

private:
  std::vector<ExportedSymbol> m_symbols; // as given
  std::vector<size_t> m_by_name;         // indices into m_symbols, sorted by name
};

// Unversioned names, one per line of a text that outlives the table (an
// embedded file); lines starting with '#' are comments. Made without copying a
// name: a check reads the interpreter's 1,700 names this way.
class NameListTable : public SymbolTable
{
public:
  explicit NameListTable(std::string_view text);
  size_t size() const override { return m_names.size(); }
  std::vector<SymbolDefinition> find(std::string_view name) const override;
  void for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const override;

private:
  std::vector<std::string_view> m_names; // sorted
};

// A table made by `make` at its first use (a lookup, a walk, its size), for
// the tables a check may never ask: a runtime's host libraries, the Python
// interpreter's names.
class OnFirstUseTable : public SymbolTable
{
public:
  explicit OnFirstUseTable(std::function<std::shared_ptr<const SymbolTable>()> make);
  size_t size() const override { return table().size(); }
  std::vector<SymbolDefinition> find(std::string_view name) const override { return table().find(name); }
  void for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const override
  {
    table().for_each(visit);
  }
  void for_each_matching(const std::function<bool(std::string_view)>& wanted,
                         const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const override
  {
    table().for_each_matching(wanted, visit);
  }

private:
  const SymbolTable& table() const;

  std::function<std::shared_ptr<const SymbolTable>()> m_make;
  mutable std::once_flag m_once;
  mutable std::shared_ptr<const SymbolTable> m_table;
};

// What a profile library exports: a value sharing one immutable table, so
// profiles copy cheaply whether the table is in memory or a mapped index.
class ExportedSymbols
{
public:
  ExportedSymbols();
  ExportedSymbols(std::vector<ExportedSymbol> symbols);           // NOLINT: a list converts implicitly
  ExportedSymbols(std::initializer_list<ExportedSymbol> symbols); // NOLINT
  explicit ExportedSymbols(std::shared_ptr<const SymbolTable> table);

  size_t size() const { return m_table->size(); }
  bool empty() const { return size() == 0; }
  std::vector<SymbolDefinition> find(std::string_view name) const { return m_table->find(name); }
  void for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const
  {
    m_table->for_each(visit);
  }
  void for_each_matching(const std::function<bool(std::string_view)>& wanted,
                         const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const
  {
    m_table->for_each_matching(wanted, visit);
  }
  const SymbolTable& table() const { return *m_table; }
  const std::shared_ptr<const SymbolTable>& shared_table() const { return m_table; }

private:
  std::shared_ptr<const SymbolTable> m_table;
};

} // namespace opkit::elf
