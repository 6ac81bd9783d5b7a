"""Alternative readings of a paper's ambiguous protocol points, the differing cells classified, and the
dataset substitutions named next to the cells they affect.

A paper often leaves a protocol point open (which test digits, which C schedule, which kernel width).
fsbench runs one reading as the **default** (fixed in advance, its reason in the config) and may run
others with the full protocol. Each such reading is declared as data in the paper's
``paper_values.yaml`` under ``readings:`` (format below); this package

* lists every reading of a report, with what it changes and the experiment that ran it;
* recompares, for every reading of a table, the table's cells with the reading's results under the
  **same** agreement rule as the default (the comparison function of :mod:`fsbench.papers.cells` is
  passed in; nothing here decides agreement on its own);
* compares every reading of a table **as a whole table**: each cell takes the reading's number where
  the reading applies to it (none where the reading has no result for it) and keeps the default's where
  the reading leaves it alone; the reading with ``explains: true`` under which the most cells of the
  whole table agree (the first declared on a tie) is the table's one **explaining reading**, and the
  others are sensitivity tables (their whole-table counts listed);
* classifies every differing cell of the default (status ``differ`` and counted):

  - **explained**: it agrees with the paper under the table's explaining reading (shown, with its
    number); a cell that only another reading closes is not explained, so no count of explained cells
    mixes two readings;
  - **paper inconsistent**: otherwise, if the paper-values cell carries ``paper_inconsistent: <reason>``
    (evidence from the paper's own numbers or text, quoted);
  - **unexplained**: otherwise (the readings tried are shown with their numbers);

* for figures (no printed cells), shows the default's and the reading's curves side by side with a
  paired t-test per point;
* re-evaluates every claim under every reading that was run and changes rows the claim reads, by the
  same checks with the reading's rows in place of the default's, beside the default verdict (a verdict is
  comparable only where every check compares the same points as under the default;
  :mod:`~fsbench.papers.readings.claims`);
* names every dataset substitution next to the cells it affects: a marker ``†k`` on the cell's setting
  and the substitution's text under the table. Substitutions come from data only: a dataset card's
  ``substitution:`` field, and a ``[D] SUBSTITUTION:`` (or ``[D] SUBSTITUTION (ds1, ds2):``) item of
  an experiment config's ``notes``.

Readings never replace the default: the default's cell counts and claim verdicts are computed before and
without them.

Modules, by concern: :mod:`~fsbench.papers.readings.declared` (the ``readings:`` entries and the table a
reading sees), :mod:`~fsbench.papers.readings.classify` (the classes of the differing cells),
:mod:`~fsbench.papers.readings.substitutions` (the ``†k`` markers), :mod:`~fsbench.papers.readings.figures`
(figure readings: curves), :mod:`~fsbench.papers.readings.claims` (the claims under the readings),
:mod:`~fsbench.papers.readings.report` (the readings part of a
paper's comparison, computed into :mod:`fsbench.papers.comparison`'s objects) and
:mod:`~fsbench.papers.readings.markdown` (that part of the report, rendered from the objects).

Format of a ``readings:`` entry
-------------------------------
::

    - id: tab2_official_test          # unique in the file
      table: table2                   # a table id, or `figure: fig2a` for a figure (claims only)
      default: tab2_usps_test_rest    # the default experiment (default: the table's / figure's experiment)
      experiment: tab2_usps           # the reading's experiment (default: the default experiment)
      label: "Table I's test set (the official 2007 digits)"
      changes: what the reading changes, in words (quote the ambiguous text where there is one)
      datasets: {usps: usps_libsvm_test}      # optional: default dataset -> the reading's dataset
      methods: {kife: "KIFE (CV steps)"}      # optional: paper method -> the reading's selector label;
                                              #   without it every method of the table is read as itself
      applies_to: {kernel: rbf, dataset: [liver_bupa]}   # optional: only cells matching these fields
      set: {S: {satimage: 5, letter: 25}}     # optional: cell fields replaced (a value, or per dataset)
      table_set: {column: E_test}             # optional: table keys replaced — where the numbers come
                                              #   from (fsbench.papers.sources: column, where, ...)
      explains: true                  # false: listed and compared as a whole table, never the table's
                                      #   explaining reading;
      why: ...                        #   then `why` is required (reduced protocol, chosen by the
                                      #   paper's numbers, ...)

A cell of a table may carry ``paper_inconsistent: "<evidence, quoting the paper>"``. A compared cell is
matched with a reading's by the paper-values cell it comes from (``CellResult.cell_index``) and the printed
number it judges (``quantity``: a table may compare two numbers per cell, e.g. TAKES Table 2's E and Dim).
"""

from fsbench.papers.readings.classify import (
    CLASSES,
    EXPLAINED,
    INCONSISTENT,
    UNEXPLAINED,
    Classified,
    WholeTable,
    class_counts,
    classify_table,
    counts_line,
    explaining_reading,
    whole_table,
)
from fsbench.papers.readings.declared import Reading, read_readings, reading_table
from fsbench.papers.readings.report import ReadingsReport
from fsbench.papers.readings.substitutions import (
    Substitution,
    SubstitutionMarks,
    card_substitution,
    substitutions,
)

__all__ = [
    "CLASSES",
    "EXPLAINED",
    "INCONSISTENT",
    "UNEXPLAINED",
    "Classified",
    "Reading",
    "ReadingsReport",
    "Substitution",
    "SubstitutionMarks",
    "WholeTable",
    "card_substitution",
    "class_counts",
    "classify_table",
    "counts_line",
    "explaining_reading",
    "read_readings",
    "reading_table",
    "substitutions",
    "whole_table",
]
