"""ValueView: a variable's summary at once, then the picture for its rank, on real widgets."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from workbench.api.values import HIST_BINS, ArrayValue, CarryTrace, ValueSummary, VarRef
from workbench.graph.value_text import ordinal, stride_note
from workbench.plots.export import qimage_to_array, render_image, settle
from workbench.plots.presentation import BASE_FONT_PT, axis_font_size, scheme_colours
from workbench.plots.value_view import (
    NAN_RGBA,
    NEG_INF_RGBA,
    POS_INF_RGBA,
    ValueView,
)

TITLE = "c:f32[3,4] = mul a b  (line 5)"


@pytest.fixture
def view(qtbot):
    v = ValueView()
    qtbot.addWidget(v)
    v.resize(520, 640)
    v.show()
    return v


def summary_of(a: np.ndarray) -> ValueSummary:
    """A summary as the engine computes one (numpy here: the widget's input, not under test)."""
    mag = np.abs(a).astype(float) if a.dtype.kind == "c" else a.astype(float)
    finite = mag[np.isfinite(mag)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    hist = np.histogram(finite, bins=HIST_BINS, range=(lo, hi) if hi > lo else None)[0]
    return ValueSummary(
        shape=a.shape, dtype=str(a.dtype),
        min=lo if finite.size else None, max=hi if finite.size else None,
        mean=float(finite.mean()) if finite.size else None,
        std=float(finite.std()) if finite.size else None,
        nan=int(np.isnan(mag).sum()), inf=int(np.isinf(mag).sum()),
        preview=tuple(float(x) for x in mag.reshape(-1)[:8]),
        hist=tuple(int(c) for c in hist), hist_lo=lo, hist_hi=hi)


def array(a: np.ndarray, stride: int = 1, shape: tuple[int, ...] | None = None) -> ArrayValue:
    return ArrayValue(VarRef((), 0, 0), a.shape if shape is None else shape, str(a.dtype), a,
                      stride)


def show(view: ValueView, a: np.ndarray, title: str = TITLE) -> None:
    view.show_value(title, summary_of(a))
    view.show_array(array(a))


def table_cells(view: ValueView) -> list[list[str]]:
    t = view.table
    return [[t.item(i, j).text() for j in range(t.columnCount())] for i in range(t.rowCount())]


# -- the summary alone ---------------------------------------------------------------------------

def test_summary_shows_header_text_and_histogram_at_once(view):
    a = np.linspace(-1, 2, 12, dtype=np.float32).reshape(3, 4)
    s = summary_of(a)
    view.show_value(TITLE, s)
    assert view.picture_kind() == "histogram"
    assert view.title() == TITLE
    assert "[\u200b" in view.header.text()  # it wraps in a narrow panel
    text = view.summary_label.text()
    for part in ("f32[3,4]", "shape (3, 4)", "float32", "12 elements", "min -1", "max 2",
                 "mean 0.5", "std", "values: -1, -0.7273"):
        assert part in text
    edges, heights = view.histogram_data()
    np.testing.assert_array_equal(heights, s.hist)
    np.testing.assert_allclose(edges, np.linspace(s.hist_lo, s.hist_hi, HIST_BINS + 1))
    assert not view.bad_label.isVisible()
    assert not view.table.isVisible() and not view.tabs.isVisible()


def test_nan_and_inf_counts_in_the_warning_colour(view):
    a = np.array([1.0, np.nan, np.nan, np.inf, -np.inf, 2.0, np.nan])
    view.show_value("y", summary_of(a))
    assert view.bad_label.isVisible()
    assert view.bad_label.text() == "3 NaN  2 Inf"
    assert view.warning_colour().name() in view.bad_label.styleSheet()
    view.show_value("z", summary_of(np.ones(3)))
    assert not view.bad_label.isVisible()


def test_none_summary_is_not_evaluated_with_the_note(view):
    view.show_value("d:f32[] = sin c  (line 7)", None, "this branch did not run")
    assert view.picture_kind() == "none"
    assert view.summary_label.text() == "not evaluated"
    assert "not evaluated" in view.message.text()
    assert "this branch did not run" in view.message.text()
    assert view.note_label.text() == "this branch did not run"
    assert view.histogram_data()[1].size == 0


def test_scalar_summary_shows_the_value_then_the_exact_array(view):
    a = np.array(0.1, dtype=np.float32)
    view.show_value("s:f32[]", summary_of(a))
    assert view.picture_kind() == "scalar"
    assert view.scalar_label.text() == f"{float(a):.8g}"  # the preview is a float64
    assert view.summary_label.text() == "f32[]   scalar   float32"
    view.show_array(array(a))
    assert view.picture_kind() == "scalar"
    assert view.scalar_label.text() == "0.1"  # float32's own shortest text
    assert view.available_pictures() == ["scalar"]
    assert not view.table.isVisible()


def test_summary_without_finite_values_says_so(view):
    view.show_value("n", summary_of(np.full(4, np.nan)))
    assert view.picture_kind() == "none"
    assert "no finite values" in view.message.text()
    view.show_value("e", summary_of(np.zeros((0, 3))))
    assert "empty" in view.message.text()


# -- full arrays by rank ---------------------------------------------------------------------------

def test_vector_is_a_line_with_a_table_and_a_histogram_tab(view):
    a = np.array([3.0, -1.5, 2.25, 0.0, 7.0], dtype=np.float32)
    show(view, a)
    assert view.picture_kind() == "line"
    x, y = view.line_data()
    np.testing.assert_array_equal(x, np.arange(5))
    np.testing.assert_array_equal(y, a)
    assert view.available_pictures() == ["line", "histogram"]
    assert view.tabs.isVisible()
    assert view.table.isVisible()
    assert table_cells(view) == [["3.0"], ["-1.5"], ["2.25"], ["0.0"], ["7.0"]]
    view.tabs.setCurrentIndex(1)  # the user clicks "Histogram"
    assert view.picture_kind() == "histogram"
    np.testing.assert_array_equal(view.histogram_data()[1], summary_of(a).hist)
    view.set_picture("line")
    assert view.picture_kind() == "line"
    with pytest.raises(ValueError, match="heatmap"):
        view.set_picture("heatmap")


def test_a_million_element_line_draws_only_what_the_pixels_show(view, qtbot):
    a = np.sin(np.linspace(0, 200, 1_000_000))
    show(view, a)
    x, y = view.line_data()
    np.testing.assert_array_equal(y, a)  # all the data is there ...
    assert not view.table.isVisible()
    settle(view.linePlot)
    # ... but ~5 samples per pixel are drawn (peak downsampling), not a million.
    qtbot.waitUntil(lambda: 0 < view.line_points_drawn() < 20_000)


def test_matrix_is_a_heatmap_with_a_colour_bar_and_a_table(view):
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 4
    show(view, a)
    assert view.picture_kind() == "heatmap"
    np.testing.assert_array_equal(view.image_data(), a)
    np.testing.assert_array_equal(view.image.image, a)
    assert view.colorbar.levels() == (-7.0, 7.0)  # diverging about zero: -4..7 has both signs
    assert not view.slice_row.isVisible()
    assert table_cells(view) == [[str(v) for v in row] for row in a]
    t = view.table
    assert [t.verticalHeaderItem(i).text() for i in range(3)] == ["0", "1", "2"]
    assert [t.horizontalHeaderItem(j).text() for j in range(4)] == ["0", "1", "2", "3"]
    assert view.value_text(2, 1) == "x[2, 1] = 5.0"
    ticks = view.imagePlot.getAxis("bottom")._tickLevels[0]
    assert ticks == [(0.5, "0"), (1.5, "1"), (2.5, "2"), (3.5, "3")]  # at the cells' centres


def test_a_million_cell_heatmap(view):
    a = np.random.default_rng(0).normal(size=(1000, 1000)).astype(np.float32)
    show(view, a)
    np.testing.assert_array_equal(view.image.image, a)
    assert view.image.autoDownsample  # drawn at the pixels it covers, not a million cells
    assert not view.table.isVisible()
    render_image(view.heatmap)


def test_positive_matrix_uses_its_own_range(view):
    a = np.array([[1.0, 2.0], [3.0, 5.0]])
    show(view, a)
    assert view.colorbar.levels() == (1.0, 5.0)


def test_higher_rank_has_a_slice_chooser(view):
    a = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    show(view, a)
    assert view.picture_kind() == "heatmap"
    assert view.slice_row.isVisible()
    spins = view.slice_spin_boxes()
    assert [(s.minimum(), s.maximum()) for s in spins] == [(0, 1), (0, 2)]
    np.testing.assert_array_equal(view.image.image, a[0, 0])
    spins[1].setValue(2)
    np.testing.assert_array_equal(view.image_data(), a[0, 2])
    np.testing.assert_array_equal(view.image.image, a[0, 2])
    spins[0].setValue(1)
    np.testing.assert_array_equal(view.image.image, a[1, 2])
    assert view.slice_index() == (1, 2)
    assert "x[1, 2, :, :]" in view.findChild(QtWidgets.QLabel, "sliceText").text()
    assert view.value_text(3, 4) == f"x[1, 2, 3, 4] = {a[1, 2, 3, 4]}"
    # the colour scale is the whole array's, so slices compare
    assert view.colorbar.levels() == (0.0, float(a.max()))
    # a smaller array after it: fewer spin boxes, ranges of its own
    b = np.ones((3, 2, 2))
    show(view, b)
    assert [(s.minimum(), s.maximum(), s.value()) for s in view.slice_spin_boxes()] == [(0, 2, 0)]
    assert view.table.isVisible()
    assert len(table_cells(view)) == 6  # 3 x 2 rows labelled "i,j", 2 columns


def test_rank_three_table_rows_are_labelled_by_leading_indices(view):
    a = np.arange(8, dtype=np.int32).reshape(2, 2, 2)
    show(view, a)
    t = view.table
    assert [t.verticalHeaderItem(i).text() for i in range(4)] == ["0,0", "0,1", "1,0", "1,1"]
    assert table_cells(view) == [["0", "1"], ["2", "3"], ["4", "5"], ["6", "7"]]


def test_histogram_tab_of_a_slice_view_hides_the_chooser(view):
    show(view, np.zeros((2, 2, 2)))
    view.set_picture("histogram")
    assert not view.slice_row.isVisible()
    view.set_picture("heatmap")
    assert view.slice_row.isVisible()


def test_nan_and_inf_cells_have_their_own_colours(view):
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    a[0, 1], a[2, 3], a[3, 0] = np.nan, np.inf, -np.inf
    show(view, a)
    assert view.picture_kind() == "heatmap"
    lo, hi = view.colorbar.levels()
    assert (lo, hi) == (0.0, 15.0)  # finite values only
    rgba = view.overlay_rgba()
    assert rgba is not None
    assert tuple(rgba[0, 1]) == NAN_RGBA
    assert tuple(rgba[2, 3]) == POS_INF_RGBA
    assert tuple(rgba[3, 0]) == NEG_INF_RGBA
    assert tuple(rgba[1, 1]) == (0, 0, 0, 0)
    assert "NaN cells magenta" in view.note_label.text()
    assert sorted(view.cell_label_texts()) == ["+∞", "NaN", "−∞"]
    pixels = qimage_to_array(render_image(view.heatmap))
    magenta = (pixels[..., 0] == 255) & (pixels[..., 1] == 0) & (pixels[..., 2] == 255)
    assert magenta.sum() > 50
    warn = view.warning_colour()
    assert view.table.item(0, 1).text() == "nan"
    assert view.table.item(0, 1).foreground().color() == warn
    assert view.table.item(0, 0).foreground().color() != warn
    # a finite matrix after it has no overlay left over
    show(view, np.ones((2, 2)))
    assert view.overlay_rgba() is None
    assert view.cell_label_texts() == []


def test_large_slices_colour_nan_cells_without_words(view):
    a = np.zeros((40, 40))
    a[5, 5] = np.nan
    show(view, a)
    assert tuple(view.overlay_rgba()[5, 5]) == NAN_RGBA
    assert view.cell_label_texts() == []
    assert view.imagePlot.getAxis("bottom")._tickLevels is None  # pyqtgraph's own ticks


def test_all_nan_matrix_does_not_break_the_colour_bar(view):
    show(view, np.full((3, 3), np.nan))
    assert view.picture_kind() == "heatmap"
    assert view.colorbar.levels() == (0.0, 1.0)
    assert (view.overlay_rgba()[..., :3] == NAN_RGBA[:3]).all()
    render_image(view.heatmap)


def test_nan_and_inf_on_a_line_are_gaps_with_markers(view):
    a = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, 2.0])
    show(view, a)
    x, y = view.line_data()
    np.testing.assert_array_equal(np.isnan(y), ~np.isfinite(a))
    mx, my = view.nonfinite_marks()
    np.testing.assert_array_equal(mx, [1, 3, 4])
    np.testing.assert_array_equal(my, [1.0, 3.0, 1.0])  # NaN and -Inf at the bottom, +Inf on top
    render_image(view.linePlot)


def test_strided_array_says_so_and_plots_the_flat_data(view):
    data = np.arange(1_000_000, dtype=np.float32)
    s = ValueSummary(shape=(2000, 1500), dtype="float32", min=0.0, max=2_999_999.0,
                     hist=(10,) * HIST_BINS, hist_lo=0.0, hist_hi=2_999_999.0)
    view.show_value("big:f32[2000,1500]", s)
    view.show_array(array(data, stride=3, shape=(2000, 1500)))
    assert view.note_label.text() == "every 3rd element of 3,000,000 shown (flattened)"
    assert view.picture_kind() == "line"
    x, y = view.line_data()
    np.testing.assert_array_equal(x, np.arange(1_000_000) * 3)
    np.testing.assert_array_equal(y, data)
    assert view.linePlot.plotItem.getAxis("bottom").labelText == "flat index"
    view.set_picture("histogram")  # the summary's, over every element
    np.testing.assert_array_equal(view.histogram_data()[1], s.hist)


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 1000)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "1,000th"]
    assert stride_note(1000, 1_000_000_000) == (
        "every 1,000th element of 1,000,000,000 shown (flattened)")


def test_bool_int_and_complex(view):
    b = np.array([[True, False], [False, True]])
    show(view, b)
    assert view.picture_kind() == "heatmap"
    np.testing.assert_array_equal(view.image_data(), [[1.0, 0.0], [0.0, 1.0]])
    assert table_cells(view) == [["True", "False"], ["False", "True"]]

    i = np.array([5, -2, 9], dtype=np.int32)
    show(view, i)
    np.testing.assert_array_equal(view.line_data()[1], i)
    assert table_cells(view) == [["5"], ["-2"], ["9"]]

    z = np.array([3 + 4j, 1j, -2], dtype=np.complex64)
    show(view, z)
    assert view.picture_kind() == "line"
    np.testing.assert_allclose(view.line_data()[1], [5.0, 1.0, 2.0])
    assert "|z|" in view.note_label.text()
    assert table_cells(view)[0] == ["(3+4j)"]
    assert "of |z|" in view.summary_label.text()


def test_array_that_does_not_fit_its_shape_is_refused_with_a_note(view):
    a = np.arange(6.0)
    show(view, a)
    view.show_array(ArrayValue(VarRef(), (4, 4), "float64", np.arange(5.0)))
    assert view.note_label.text() == "the array arrived with 5 elements; shape (4, 4) has 16"
    assert view.picture_kind() == "line"  # the last good picture stays
    np.testing.assert_array_equal(view.line_data()[1], a)


def test_array_for_another_variable_is_refused(view):
    view.show_value("a", summary_of(np.arange(3.0)))
    view.show_array(array(np.ones((2, 2))))  # a late reply: the panel has moved on
    assert view.note_label.text() == (
        "an array of shape (2, 2) arrived for a variable of shape (3,); not shown")
    assert view.picture_kind() == "histogram"
    assert view.histogram_data()[1].sum() == 3


def test_array_without_a_summary_brings_its_own(view):
    view.clear()
    b = np.array([[1.0, 1.0], [2.0, np.inf]])
    view.show_array(array(b))
    assert view.picture_kind() == "heatmap"
    assert "f64[2,2]" in view.summary_label.text()
    assert view.bad_label.text() == "1 Inf"
    view.set_picture("histogram")
    edges, heights = view.histogram_data()
    assert heights.sum() == 3  # the finite values
    assert edges[0] == 1.0 and edges[-1] == 2.0


def test_the_summary_note_stays_when_the_array_arrives(view):
    a = np.arange(4.0)
    view.show_value("b", summary_of(a), "the last iteration's value")
    view.show_array(array(a))
    assert view.note_label.text() == "the last iteration's value"


def test_a_new_array_drops_the_last_one(view):
    show(view, np.arange(10.0))
    show(view, np.ones((2, 2)))
    assert view.line_data()[1].size == 0
    show(view, np.arange(3.0))
    assert view.image_data().size == 0 and view.image.image is None
    assert view.overlay_rgba() is None


def test_one_element_says_element(view):
    view.show_value("o", summary_of(np.ones((1, 1))))
    assert "1 element" in view.summary_label.text()
    assert "1 elements" not in view.summary_label.text()


def test_empty_array(view):
    show(view, np.zeros((0, 4)))
    assert view.picture_kind() == "none"
    assert "empty" in view.message.text()


# -- carry, clear, scheme, scale ---------------------------------------------------------------

def test_carry_trace_of_a_newton_iteration(view):
    x = [1.0]
    for _ in range(6):
        x.append(x[-1] - (x[-1] ** 2 - 2) / (2 * x[-1]))
    trace = CarryTrace(position=1, steps=np.arange(7), values=np.array(x))
    view.show_carry(trace, "x")
    assert view.picture_kind() == "carry"
    steps, values = view.carry_data()
    np.testing.assert_array_equal(steps, np.arange(7))
    np.testing.assert_array_equal(values, x)
    assert "x" in view.header.text() and "carry 1" in view.header.text()
    assert "7 points, iterations 0–6" in view.summary_label.text()
    assert "last 1.414" in view.summary_label.text()
    assert not view.note_label.isVisible()
    assert not view.tabs.isVisible() and not view.table.isVisible()
    # the distance to the last value on a log axis: Newton doubles its digits per step
    assert view.carry_error_box.isVisible()
    view.carry_error_box.setChecked(True)
    steps, y = view.carry_data()
    err = np.abs(np.array(x) - x[-1])
    np.testing.assert_allclose(y[err > 0], np.log10(err[err > 0]))
    assert np.isnan(y[-1])  # the last point is the reference: a gap, not -inf
    assert view.carryPlot.plotItem.getAxis("left").labelText == "log₁₀ |x − x_last|"
    view.carry_error_box.setChecked(False)
    np.testing.assert_array_equal(view.carry_data()[1], x)
    show(view, np.arange(3.0))
    assert not view.carry_error_box.isVisible()


def test_thinned_carry_trace_says_its_stride(view):
    steps = np.arange(0, 100_000, 10)
    values = 1.0 / (1 + steps.astype(float))
    values[-3:] = np.nan
    view.show_carry(CarryTrace(0, steps, values, stride=10), "err")
    assert view.note_label.text() == "every 10th iteration shown"
    np.testing.assert_array_equal(view.carry_data()[0], steps)
    assert view.bad_label.text() == f"not finite from iteration {steps[-3]:,}"


def test_carry_trace_with_mismatched_lengths_says_so(view):
    view.show_carry(CarryTrace(0, np.arange(3), np.zeros(2)), "x")
    assert view.picture_kind() == "none"
    assert "3 steps, 2 values" in view.note_label.text()


def test_clear_drops_everything(view):
    show(view, np.arange(10.0))
    view.clear("select a variable")
    assert view.picture_kind() == "none"
    assert view.message.text() == "select a variable"
    assert view.header.text() == "" and view.summary_label.text() == ""
    assert not view.table.isVisible() and not view.tabs.isVisible()
    assert view.line_data()[1].size == 0


def test_scheme_switch(view):
    show(view, np.array([1.0, np.nan]))
    dark_warn = view.warning_colour()
    view.set_scheme("light")
    bg, fg = scheme_colours("light")
    for w in (view.histPlot, view.linePlot, view.carryPlot, view.heatmap):
        assert w.backgroundBrush().color() == bg
    assert view.linePlot.plotItem.getAxis("left").pen().color() == fg
    assert view.colorbar.axis.pen().color() == fg
    assert view.warning_colour() != dark_warn
    assert view.warning_colour().name() in view.bad_label.styleSheet()
    assert view.table.item(1, 0).foreground().color() == view.warning_colour()
    view.set_scheme("dark")
    assert view.linePlot.backgroundBrush().color() == scheme_colours("dark")[0]
    assert view.scheme() == "dark"


def test_presentation_scale(view):
    show(view, np.arange(4.0).reshape(2, 2))
    view.set_presentation_scale(2.0)
    assert view.summary_label.font().pointSizeF() == pytest.approx(2 * BASE_FONT_PT)
    assert view.table.font().pointSizeF() == pytest.approx(2 * BASE_FONT_PT)
    assert axis_font_size(view.imagePlot) == pytest.approx(2 * BASE_FONT_PT)
    assert axis_font_size(view.linePlot.plotItem) == pytest.approx(2 * BASE_FONT_PT)
    curve = view.linePlot.plotItem.listDataItems()[0]
    assert curve.opts["pen"].widthF() == pytest.approx(3.0)
    view.set_presentation_scale(1.0)  # never compounds
    assert axis_font_size(view.imagePlot) == pytest.approx(BASE_FONT_PT)


def test_heatmap_hover_shows_the_cell(view):
    a = np.arange(6.0).reshape(2, 3)
    show(view, a)
    settle(view.heatmap)
    vb = view.imagePlot.vb
    view.heatmap.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(2.5, 1.5)))
    assert view.heatmap.toolTip() == "x[1, 2] = 5.0"


def _ticks(axis, lo: float, hi: float, pixels: float = 400.0) -> tuple[list[float], list[str]]:
    """The tick positions an axis draws over [lo, hi], and their words."""
    values = [v for _spacing, vals in axis.tickValues(lo, hi, pixels) for v in vals]
    return values, axis.tickStrings(values, 1.0, 1.0)


@pytest.mark.parametrize(("lo", "hi"), [(-0.1, 2.1), (0.0, 0.6), (0.0, 7.0), (3.0, 1_999_999.0)])
def test_index_axes_tick_whole_numbers_only(view, lo, hi):
    show(view, np.arange(3, dtype=np.float32))
    axis = view.linePlot.plotItem.getAxis("bottom")
    values, words = _ticks(axis, lo, hi)
    assert values and all(float(v).is_integer() for v in values)
    assert all("." not in w and "e" not in w for w in words)
    view.linePlot.plotItem.setXRange(0, 2_000_000, padding=0)
    axis.updateAutoSIPrefix()
    assert "(x" not in axis.labelString() and axis.autoSIPrefixScale == 1.0
    # The carry's iterations and the histogram's counts are whole numbers too.
    for other in (view.carryPlot.plotItem.getAxis("bottom"),
                  view.histPlot.plotItem.getAxis("left")):
        assert all(float(v).is_integer() for v in _ticks(other, lo, hi)[0])


def test_heatmap_axes_tick_whole_numbers_at_cell_centres(view):
    show(view, np.arange(40 * 30, dtype=np.float32).reshape(40, 30))  # past the cell labels
    for name in ("bottom", "left"):
        axis = view.imagePlot.getAxis(name)
        values, words = _ticks(axis, 0.0, 30.0, 300.0)
        assert values and all(v - 0.5 == int(v - 0.5) for v in values)
        assert words == [str(int(v - 0.5)) for v in values]
        assert all(float(w).is_integer() for w in _ticks(axis, 0.0, 1.0)[1])
