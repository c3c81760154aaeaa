"""Code exercises: students' own search functions, run in the sandbox and graded by what they do.

:mod:`grading.code.contract` states what students write, :mod:`grading.code.cases` builds the
hidden tests, :mod:`grading.code.runs` runs them in :mod:`grading.sandbox`,
:mod:`grading.code.search_grading` and :mod:`grading.code.agents` judge the runs, and
:mod:`grading.code.grader` puts one submission's report together.
"""
