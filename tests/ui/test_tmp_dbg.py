from tests.ui.test_projector import _presenting_lesson, ENGINE_MS

def test_dbg(qtbot, make_window):
    window = _presenting_lesson(qtbot, make_window, (1024, 768), "01_quick_peek.ipynb")
    window.lessons.go_to(6)
    qtbot.waitUntil(lambda: window.plot_panel.last_curves("selu") is not None, timeout=ENGINE_MS)
    j = window.jaxpr
    print("DBG1", j.height(), j.tree.viewport().height(), j.tree_rows(), j._compact, file=open("/tmp/dbg.txt", "a"))
    window.set_presentation(False)
    print("DBG2", j.height(), j.tree_rows(), j._compact, j.equation.isHidden(), file=open("/tmp/dbg.txt", "a"))
    qtbot.wait(300)
    print("DBG3", j.height(), j.tree_rows(), j._compact, j.equation.isHidden(), j.equation.minimumHeight(), j.tabs.tabBar().sizeHint().height(), j.filter_edit.sizeHint().height(), j.stats_label.sizeHint().height(), j._row_height(), j.tree.header().sizeHint().height(), file=open("/tmp/dbg.txt", "a"))
