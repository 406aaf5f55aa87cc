"""The ``omission`` check on what a length model cannot see (WMT's human evaluation,
benchmarks/bench_meaning.py): a text's credits (an outlet in a dateline or after a title, a
byline, a picture's source), a part in brackets of an English source, and a bracketed part of
a Chinese source whose content the answer has elsewhere; thanks said twice."""

from __future__ import annotations

import pytest

from fastdesk.translate.checks import check_block
from fastdesk.translate.credits import credit_left_out, outlet_kept
from fastdesk.translate.meaning_checks import omission_problem


def omission(source: str, answer: str, lang: str) -> str | None:
    """The omission flag as the app raises it on an answer (check_block, Markdown and all)."""
    flags = {
        f.check: f.detail for f in check_block(source, answer, target_lang=lang, mode="translate")
    }
    return flags.get("omission")


DATELINE = "中新网2月11日电 据应急管理部网站11日消息，中国救援队营救出1名被困人员。"
DATELINE_KEPT = (
    "Feb. 11 (China News Service) -- According to the website of the Ministry of Emergency "
    "Management on the 11th, the Chinese rescue team rescued one trapped person."
)


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        (DATELINE, DATELINE_KEPT),
        # an outlet named wrongly is a mistranslation, not a credit left out
        (DATELINE, DATELINE_KEPT.replace("China News Service", "Xinhua")),
        ("健身行业应摆脱信任危机-中新网",
         "Fitness industry should shake off its crisis of trust - Chinanews"),
        ("（记者赵博、黄扬）台湾出口连续五个月下降。",
         "(Reporters Zhao Bo and Huang Yang) Taiwan's exports fell for a fifth month."),
        ("2022年回国求职留学生留学国前10 图源：《2022中国海归就业调查报告》",
         "Top 10 countries of returning students in 2022. Source: 2022 China Returnee "
         "Employment Survey Report"),
    ],
)  # fmt: skip
def test_a_credit_kept_is_no_omission(source: str, answer: str) -> None:
    assert omission(source, answer, "en") is None


@pytest.mark.parametrize(
    ("source", "answer", "named"),
    [
        (DATELINE, DATELINE_KEPT.replace("Feb. 11 (China News Service) -- ", ""), "中新网"),
        ("健身行业应摆脱信任危机-中新网",
         "Fitness industry should shake off its crisis of trust", "中新网"),
        ("（记者赵博、黄扬）台湾出口连续五个月下降。",
         "Taiwan's exports fell for a fifth month.", "记者"),
        ("扬子晚报讯 记者10日在采访中发现，保价协议又回来了。",
         "Yangtse Evening News: it was found on the 10th that price guarantees are back.", "记者"),
        ("2022年回国求职留学生留学国前10 图源：《2022中国海归就业调查报告》",
         "Top 10 countries of returning students in 2022", "图源"),
    ],
)  # fmt: skip
def test_a_credit_left_out_of_a_chinese_source_is_an_omission(
    source: str, answer: str, named: str
) -> None:
    found = omission(source, answer, "en")
    assert found is not None and named in found


def test_credits_in_an_english_source_are_kept_as_written() -> None:
    source = "BERLIN (AP) — Hans Modrow, East Germany's last communist leader, has died at 95."
    kept = "BERLIN (AP) — Hans Modrow, der letzte kommunistische Regierungschef der DDR, ist tot."
    assert omission(source, kept, "de") is None
    found = omission(source, kept.replace(" (AP)", ""), "de")
    assert found is not None and "AP" in found
    # "Bloomberg reported" left out
    source = "The bank cut 200 jobs, Bloomberg reported on Friday."
    assert (
        omission(source, "Die Bank strich 200 Stellen, berichtete Bloomberg am Freitag.", "de")
        is None
    )
    assert omission(source, "Die Bank strich am Freitag 200 Stellen.", "de") is not None


def test_credits_are_not_compared_with_an_answer_in_chinese_characters() -> None:
    assert credit_left_out("Reuters reported the deal.", "路透社报道了这笔交易。", "zh") is None
    assert credit_left_out("据路透社报道，交易完成。", "据路透社报道，交易完成。", "ja") is None


def test_a_part_in_brackets_of_an_english_source_left_out() -> None:
    source = "Its creative director Demna (full name Demna Gvasalia) apologised, he told Vogue."
    kept = (
        "Ihr Kreativdirektor Demna (vollständiger Name Demna Gvasalia) entschuldigte sich, "
        "sagte er Vogue."
    )
    assert omission(source, kept, "de") is None
    found = omission(source, kept.replace(" (vollständiger Name Demna Gvasalia)", ""), "de")
    assert found is not None and "Gvasalia" in found
    # a gloss whose words are translated, brackets and all, is there
    laughter = "(Laughter) And there's no way of telling anybody about it."
    assert (
        omission(laughter, "(Gelächter) Und es gibt keine Möglichkeit, es jemandem zu sagen.", "de")
        is None
    )
    # a gloss in brackets that joins the text, with no name or figure to miss, is not judged
    glossed = "Reduce the total time [of assembly] by a third."
    assert omission(glossed, "Reduzieren Sie die gesamte Montagezeit um ein Drittel.", "de") is None


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        # the outlet in brackets, named in the answer without them
        ("（德国之声中文网）拜登政府本周五（2月10日）将6个中国实体列入黑名单。",
         "The Biden administration on Friday (February 10) blacklisted six Chinese entities, "
         "according to Deutsche Welle Chinese."),
        # a dateline in brackets moved to the end
        ("【环球时报驻比利时特派记者牛瑞飞】据法新社2月10日报道，欧盟领导人同意出台更严格的政策。",
         "According to AFP on February 10, EU leaders agreed on stricter policies, reported Niu "
         "Ruifei, the Global Times' special correspondent in Belgium."),
        # the date in brackets given without them
        ("美国军方周五（2月10日）下午击落了一个物体。",
         "The US military shot down an object on the afternoon of Friday, February 10."),
    ],
)  # fmt: skip
def test_a_part_in_brackets_whose_content_the_answer_has_is_not_left_out(
    source: str, answer: str
) -> None:
    assert omission_problem(source, answer, "en") is None


def test_outlet_kept_reads_the_answers_form_of_the_name() -> None:
    assert outlet_kept("（德国之声中文网）", "according to Deutsche Welle")
    assert not outlet_kept("（德国之声中文网）", "according to a German broadcaster")
    assert not outlet_kept("（英国诗人）", "John Donne, the English poet")


@pytest.mark.parametrize(
    ("source", "answer", "lang"),
    [
        ("谢谢。谢谢大家。", "Thank you.", "en"),
        ("Thank you. Thank you very much.", "Vielen Dank.", "de"),
    ],
)
def test_thanks_said_twice_is_no_omission(source: str, answer: str, lang: str) -> None:
    assert omission_problem(source, answer, lang) is None


def test_a_sentence_that_only_starts_like_the_one_before_still_counts() -> None:
    source = (
        "The committee met on Monday to discuss the budget. The committee met again on "
        "Tuesday and approved the plan with a large majority of its members."
    )
    answer = "Der Ausschuss trat am Montag zusammen, um über den Haushalt zu beraten."
    assert omission_problem(source, answer, "de") is not None


def test_an_answer_that_keeps_nothing_of_the_source_is_another_text_not_an_omission() -> None:
    source = "2月11日上午，范明政走访了文莱达鲁萨兰大学（UBD，简称“文莱大学”）。"
    invented = "The film is directed by Lee Kang-hoon and written by Lee Kang-hoon."
    assert omission_problem(source, invented, "en") is None
    # the same part left out of a translation that keeps the rest is an omission
    # a page's date line answered with a film's credits keeps none of its figures either
    dateline = "2023-02-11 13:09:10 [来源:新华社] [责编:李絮枫] 字体:【大中小】"
    assert omission_problem(dateline, invented, "en") is None
    kept = "2023-02-11 13:09:10 [Source: Xinhua] [Editor: Li Xufeng]"
    assert omission_problem(dateline, kept, "en") is not None  # 【大中小】 left out
    dropped = "On the morning of February 11, Pham Minh Chinh visited the University of Brunei."
    found = omission_problem(source, dropped, "en")
    assert found is not None and "UBD" in found


def test_a_credit_rendered_word_for_word_is_kept() -> None:
    assert (
        omission("健身行业应摆脱信任危机-中新网", "Fitness trust crisis - The New Network", "en")
        is None
    )
    assert omission("健身行业应摆脱信任危机-中新网", "Fitness trust crisis", "en") is not None


def test_an_outlet_named_fewer_times_than_in_the_source_is_a_credit_left_out() -> None:
    source = "越通社河内——越通社特派记者报道，越南总理对新加坡进行了正式访问。"
    both = "Hanoi (VNA) - A VNA special correspondent reports that the PM visited Singapore."
    assert omission(source, both, "en") is None
    found = omission(source, both.replace("A VNA special", "A special"), "en")
    assert found is not None and "越通社" in found
    source = 'Demna said he was sorry in an interview with Vogue. "I apologise," he told Vogue.'
    kept = "Demna sagte Vogue, es tue ihm leid. „Ich entschuldige mich“, sagte er Vogue."
    assert omission(source, kept, "de") is None
    assert omission(source, kept.replace(", sagte er Vogue", ", sagte er"), "de") is not None


def test_a_firms_name_keeps_its_ampersand() -> None:
    source = "The department hired an outside law firm, Debevoise & Plimpton, to assist it."
    kept = "Das Ministerium beauftragte die Kanzlei Debevoise & Plimpton mit der Unterstützung."
    assert omission(source, kept, "de") is None
    found = omission(source, kept.replace(" & ", " "), "de")
    assert found is not None and "Debevoise & Plimpton" in found


def test_a_news_outlets_full_name_is_its_credit() -> None:
    source = "A DHS official tells CBS News the department has hired the firm."
    kept = "Ein DHS-Beamter sagte CBS News, das Ministerium habe die Kanzlei beauftragt."
    assert omission(source, kept, "de") is None
    assert omission(source, kept.replace("CBS News", "CBS"), "de") is not None


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        # "AP" outside a credit's place is not an outlet: here, an access point
        ("Connect the laptop to the AP first.",
         "Verbinden Sie den Laptop zuerst mit dem Access Point."),
        ("Guardian angels watch over us.", "Schutzengel wachen über uns."),
    ],
)  # fmt: skip
def test_a_short_or_common_name_outside_a_credit_is_no_outlet(source: str, answer: str) -> None:
    assert credit_left_out(source, answer, "de") is None


def test_a_short_outlet_name_in_a_credits_place_is_one() -> None:
    found = credit_left_out(
        "McDonald's apologised - RT World News", "McDonald's entschuldigte sich", "de"
    )
    assert found is not None and "RT" in found


def test_a_part_in_brackets_whose_figure_the_answer_keeps_in_its_locales_form() -> None:
    source = "The service now has more users (1,000 in March)."
    assert (
        omission_problem(source, "Der Dienst hat jetzt mehr Nutzer, 1.000 im März.", "de") is None
    )
    assert omission_problem(source, "Der Dienst hat jetzt mehr Nutzer.", "de") is not None
