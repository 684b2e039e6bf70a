"""The check-yourself quiz (course_lib.quiz): a question bank for every notebook, and a form that answers at once."""

from __future__ import annotations

import pytest

from notebook_cells import NOTEBOOKS

from course_lib.quiz import Quiz, feedback, quiz, quiz_text
from course_lib.quiz_questions import QUESTIONS

NUMBERS = [int(p.name[:2]) for p in NOTEBOOKS]
QUIZZES = sorted(set(NUMBERS) | set(QUESTIONS))


def test_every_notebook_has_a_quiz():
    assert sorted(QUESTIONS) == NUMBERS == list(range(13))


def test_the_right_answer_is_not_always_in_the_same_place():
    from course_lib.quiz import questions_for

    places = [next(i for i, o in enumerate(q.options) if o.correct) for n in NUMBERS for q in questions_for(n)]
    assert len(set(places)) >= 3, places
    assert questions_for(3) == questions_for(3)  # the same order every time


@pytest.mark.parametrize("notebook", QUIZZES)
def test_three_to_five_questions_each_with_exactly_one_right_option(notebook):
    questions = QUESTIONS[notebook]
    assert 3 <= len(questions) <= 5
    for question in questions:
        assert question.text.strip()
        assert len(question.options) >= 3, question.text
        assert sum(o.correct for o in question.options) == 1, question.text
        assert len({o.text for o in question.options}) == len(question.options), question.text
        for option in question.options:
            assert option.text.strip() and option.explanation.strip(), question.text


@pytest.mark.parametrize("notebook", QUIZZES)
def test_clicking_an_option_shows_right_or_wrong_and_its_explanation(notebook):
    form = quiz(notebook)
    assert isinstance(form, Quiz)
    assert all(f.value == "" for f in form.feedbacks)  # nothing shown before a pick
    for k, question in enumerate(form.questions):
        wrong = next(i for i, o in enumerate(question.options) if not o.correct)
        right = next(i for i, o in enumerate(question.options) if o.correct)
        form.choices[k].index = wrong  # what a click on a radio button does
        shown = form.feedbacks[k].value
        assert "❌" in shown and _escaped(question.options[wrong].explanation) in shown
        assert _escaped(question.options[right].text) in shown  # a wrong pick names the right answer
        assert form.results[k] is False
        form.choices[k].index = right
        shown = form.feedbacks[k].value
        assert "✅" in shown and _escaped(question.options[right].explanation) in shown and "❌" not in shown
        assert form.results[k] is True
    total = len(form.questions)
    assert f"{total} / {total}" in form.score.value


def _escaped(text: str) -> str:
    import html

    return html.escape(text)


def test_score_counts_right_answers_only():
    form = quiz(2)
    question = form.questions[0]
    form.choices[0].index = next(i for i, o in enumerate(question.options) if not o.correct)
    assert "已答对 0 / " in form.score.value and "答了 1 题" in form.score.value


def test_feedback_and_plain_text():
    question = QUESTIONS[6][1]
    right = next(i for i, o in enumerate(question.options) if o.correct)
    ok, text = feedback(question, right)
    assert ok and text.startswith("✅")
    ok, text = feedback(question, (right + 1) % len(question.options))
    assert not ok and text.startswith("❌") and question.options[right].text in text
    plain = quiz_text(6)
    assert question.text in plain and "A. " in plain
    assert "text/plain" in quiz(6)._repr_mimebundle_()


def test_unknown_notebook_is_a_clear_error():
    with pytest.raises(ValueError, match="没有 notebook 13 的小测验"):
        quiz(13)
