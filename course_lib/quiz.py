"""A check-yourself quiz at the end of each notebook: multiple choice, instant feedback.

Used as the last cell of every notebook::

    from course_lib.quiz import quiz
    quiz(3)

``quiz(n)`` shows the questions of notebook ``n`` (``quiz_questions.QUESTIONS``)
as an ipywidgets form: one group of radio buttons per question.  Picking an
option shows at once whether it is right and the explanation of that option
(a wrong pick also names the right answer); a score line counts the questions
answered right.  The labels come from ``course_lib.texts`` (``quiz.*`` keys).
Without ipywidgets (a terminal, a test, nbclient) the quiz prints as plain
text with the questions and options.
"""

from __future__ import annotations

import html
import random
from typing import Any

from .quiz_questions import QUESTIONS, Question
from .texts import t

_RIGHT_COLOUR = "#166534"
_WRONG_COLOUR = "#b91c1c"


def questions_for(notebook: int) -> list[Question]:
    """The questions of notebook ``notebook`` (0-12), options in the order they are shown.

    The bank lists the right option first; here each question's options are
    shuffled with a fixed seed (notebook, question), so the right answer is
    not always A, and every run (and the teacher's copy) shows the same order.
    Raises:
        ValueError: there is no quiz for that notebook.
    """
    if notebook not in QUESTIONS:
        raise ValueError(t("quiz.unknown_notebook", notebook=notebook, known=", ".join(f"{n:02d}" for n in sorted(QUESTIONS))))
    shown = []
    for k, question in enumerate(QUESTIONS[notebook]):
        options = list(question.options)
        random.Random(f"quiz-{notebook}-{k}").shuffle(options)
        shown.append(Question(question.text, tuple(options)))
    return shown


def feedback(question: Question, picked: int) -> tuple[bool, str]:
    """``(right, text)`` for picking option ``picked`` (0-based) of ``question``.

    ``text`` is 「✅ 答对了：<explanation>」, or 「❌ 不对：<explanation> 正确答案是：<option>」.
    """
    option = question.options[picked]
    if option.correct:
        return True, t("quiz.right", explanation=option.explanation)
    right = next(o for o in question.options if o.correct)
    return False, t("quiz.wrong", explanation=option.explanation, answer=right.text)


class Quiz:
    """The quiz of one notebook as a widget; ``quiz(n)`` builds it.

    Attributes:
        notebook: the notebook number.
        questions: its ``quiz_questions.Question`` list.
        choices: one ``ipywidgets.RadioButtons`` per question (value None until picked;
            its ``index`` is the picked option).
        feedbacks: one ``ipywidgets.HTML`` per question: empty until an option is picked.
        score: ``ipywidgets.HTML``: how many are answered right so far.
        results: per question None (not answered) or True/False (the last pick).
        widget: the ``VBox`` Jupyter displays.
    """

    def __init__(self, notebook: int):
        import ipywidgets as w

        self.notebook = notebook
        self.questions = questions_for(notebook)
        self.results: list[bool | None] = [None] * len(self.questions)
        self.choices, self.feedbacks, boxes = [], [], []
        for k, question in enumerate(self.questions):
            choice = w.RadioButtons(options=[o.text for o in question.options], value=None,
                                    layout=w.Layout(width="auto"), style={"description_width": "0px"})
            note = w.HTML("")
            choice.observe(lambda change, k=k: self._picked(k, change), names="index")
            title = w.HTML(f"<b>{html.escape(t('quiz.question', number=k + 1, text=question.text))}</b>")
            self.choices.append(choice)
            self.feedbacks.append(note)
            boxes.append(w.VBox([title, choice, note]))
        self.score = w.HTML(self._score_text())
        heading = w.HTML(f"<h3>{html.escape(t('quiz.title', notebook=f'{notebook:02d}'))}</h3>")
        self.widget = w.VBox([heading, *boxes, self.score])
        self.widget.add_class("course-quiz")

    def _picked(self, k: int, change: dict) -> None:
        index = change.get("new")
        if index is None:
            return
        right, text = feedback(self.questions[k], index)
        self.results[k] = right
        colour = _RIGHT_COLOUR if right else _WRONG_COLOUR
        self.feedbacks[k].value = f"<div style='color:{colour};white-space:pre-wrap'>{html.escape(text)}</div>"
        self.score.value = self._score_text()

    def _score_text(self) -> str:
        right = sum(r is True for r in self.results)
        answered = sum(r is not None for r in self.results)
        return html.escape(t("quiz.score", right=right, answered=answered, total=len(self.questions)))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # The widget for JupyterLab; the questions as text for front-ends without widgets.
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = str(self)
        return bundle

    def __str__(self) -> str:
        return quiz_text(self.notebook)

    __repr__ = __str__


def quiz_text(notebook: int) -> str:
    """The quiz of ``notebook`` as plain text: the questions and their options (answers not shown)."""
    lines = [t("quiz.title", notebook=f"{notebook:02d}")]
    for k, question in enumerate(questions_for(notebook)):
        lines.append(t("quiz.question", number=k + 1, text=question.text))
        lines += [f"  {chr(ord('A') + i)}. {option.text}" for i, option in enumerate(question.options)]
    return "\n".join(lines)


def quiz(notebook: int) -> Any:
    """Show the check-yourself quiz of notebook ``notebook`` (0-12): a ``Quiz`` widget.

    Without ipywidgets installed, returns the plain-text quiz (``quiz_text``).
    Raises:
        ValueError: there is no quiz for that notebook.
    """
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return quiz_text(notebook)
    return Quiz(notebook)
