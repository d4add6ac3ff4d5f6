// hybridlab-c-cells: a notebook code cell whose first line is `%%c ...` (hybridlab's C cell
// magic) is highlighted as C; it goes back to the notebook's language when that line changes.
//
// The notebook sets every code cell's model.mimeType itself: on insertion, and again for all
// cells whenever the kernel's language_info arrives or changes. So the mime type is re-applied
// after any change of it (mimeTypeChanged), of the cell's source (first line only), of the cell
// list and of the notebook's model. The editor applies a language when its (lazy) load resolves,
// so a first, slower load of Python could land after C and win: while the current or the wanted
// language is not loaded yet, both are loaded first and the change waits one more turn.
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker } from '@jupyterlab/notebook';

const C_CELL = /^%%c(\s|$)/;
const C_MIME = 'text/x-csrc';

function wanted(notebook, cell) {
  return C_CELL.test(cell.sharedModel.getSource()) ? C_MIME : notebook.codeMimetype;
}

async function apply(notebook, cell, languages) {
  if (cell.isDisposed || cell.mimeType === wanted(notebook, cell)) {
    return;
  }
  const pending = [cell.mimeType, wanted(notebook, cell)].filter(
    m => languages && languages.findBest(m) && !languages.findBest(m).support
  );
  if (pending.length) {
    await Promise.all(pending.map(m => languages.getLanguage(m).catch(() => null)));
    await new Promise(resolve => setTimeout(resolve, 0)); // the editor's own loads land first
    if (cell.isDisposed) {
      return;
    }
  }
  const mime = wanted(notebook, cell); // the source may have changed meanwhile
  if (cell.mimeType !== mime) {
    cell.mimeType = mime;
  }
}

function watchCell(notebook, watched, cell, languages) {
  if (cell.type !== 'code' || cell.isDisposed || watched.has(cell)) {
    return;
  }
  watched.add(cell);
  const update = () => void apply(notebook, cell, languages);
  cell.mimeTypeChanged.connect(update);
  cell.sharedModel.changed.connect((_, change) => {
    if (change.sourceChange) {
      update();
    }
  });
  update();
}

function watchNotebook(notebook, languages) {
  const watched = new WeakSet(); // the cell models this notebook view already follows
  let model = null;
  const onCells = (_, change) => {
    if (change.type === 'add' || change.type === 'set') {
      change.newValues.forEach(cell => watchCell(notebook, watched, cell, languages));
    }
  };
  const onModel = () => {
    if (model) {
      model.cells.changed.disconnect(onCells);
    }
    model = notebook.model;
    if (model) {
      model.cells.changed.connect(onCells);
      for (const cell of model.cells) {
        watchCell(notebook, watched, cell, languages);
      }
    }
  };
  notebook.modelChanged.connect(onModel);
  notebook.disposed.connect(() => model && model.cells.changed.disconnect(onCells));
  onModel();
}

const plugin = {
  id: 'hybridlab-c-cells:plugin',
  description: 'Highlights %%c notebook cells as C.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [IEditorLanguageRegistry],
  activate: (app, tracker, languages) => {
    tracker.forEach(panel => watchNotebook(panel.content, languages));
    tracker.widgetAdded.connect((_, panel) => watchNotebook(panel.content, languages));
  }
};

export default plugin;
