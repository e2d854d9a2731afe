;;; intent-lsp.el --- intent-lsp for Emacs, through eglot or lsp-mode  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; Intent scopes and Agent Trace attribution in Emacs.  Tested with Emacs 28.2 and Debian's elpa-eglot
;; 1.9 and elpa-lsp-mode 8.0.0.
;;
;;   (add-to-list 'load-path "/path/to/intent-lsp/clients/emacs")
;;   (require 'intent-lsp)
;;
;; With eglot:    (intent-lsp-setup)            then M-x eglot in any file of the workspace
;; With lsp-mode: (intent-lsp-lsp-mode-setup)   then M-x lsp in any file of the workspace
;;
;; A "governed workspace" is the nearest directory above a file that holds
;; .orchestration/active_intents.yaml.  Eglot runs one server per buffer, so there intent-lsp takes the
;; place of the language's own server in that workspace's files (all modes, or `intent-lsp-modes');
;; lsp-mode runs it as an add-on server next to the language's own.  Quick fixes are code actions
;; (eglot-code-actions, lsp-execute-code-action); M-x intent-lsp-select, intent-lsp-clear and
;; intent-lsp-blame work with either.

;;; Code:

(require 'project)
(require 'seq)
(require 'subr-x)

(defgroup intent-lsp nil
  "Intent scopes and Agent Trace attribution, via the intent-lsp language server."
  :group 'tools)

(defcustom intent-lsp-command '("intent-lsp" "--stdio")
  "Command line that starts the server.
For a checkout: (\"node\" \"/path/to/dist/server.js\" \"--stdio\")."
  :type '(repeat string))

(defcustom intent-lsp-modes t
  "Major modes in which eglot uses intent-lsp in a governed workspace.
t for every mode; otherwise a list of modes, and modes derived from them count
\(e.g. `prog-mode' covers the programming modes).  Eglot runs one server per
buffer: where intent-lsp is used, it takes the place of that mode's usual server.
lsp-mode does not need this: it runs intent-lsp next to the usual server."
  :type '(choice (const :tag "Every mode" t) (repeat symbol)))

(defconst intent-lsp--marker ".orchestration/active_intents.yaml"
  "The file whose presence makes a directory a governed workspace.")

(defun intent-lsp-root (&optional file)
  "The governed workspace of FILE (default: this buffer's file), or nil.
It is the nearest directory above FILE holding .orchestration/active_intents.yaml."
  (let ((file (or file buffer-file-name)))
    (when-let ((root (and file (locate-dominating-file file intent-lsp--marker))))
      (file-name-as-directory (expand-file-name root)))))

(defun intent-lsp-project (dir)
  "A project rooted at the governed workspace of DIR, for `project-find-functions'.
Consulted after version control, so a git repository keeps its root."
  (when-let ((root (locate-dominating-file dir intent-lsp--marker)))
    (cons 'transient (expand-file-name root))))

(defun intent-lsp--get (object key)
  "KEY (a keyword) of a JSON OBJECT as eglot (plist) or lsp-mode (hash table) parsed it."
  (if (hash-table-p object)
      (gethash (substring (symbol-name key) 1) object)
    (plist-get object key)))

;;;; eglot

(defvar eglot-server-programs)
(defvar eglot--servers-by-project)
(declare-function eglot-current-server "eglot")
(declare-function eglot--current-project "eglot")
(declare-function eglot--server-info "eglot")
(declare-function eglot--path-to-uri "eglot")
(declare-function jsonrpc-request "jsonrpc")

(defun intent-lsp--wanted-mode-p ()
  "Whether `intent-lsp-modes' covers this buffer's major mode."
  (or (eq intent-lsp-modes t)
      (apply #'provided-mode-derived-p major-mode intent-lsp-modes)))

(defun intent-lsp--eglot-server (&optional project)
  "The running eglot connection to intent-lsp for PROJECT (default: this buffer's), if any."
  (when (and (boundp 'eglot--servers-by-project) (fboundp 'eglot--current-project))
    (seq-find (lambda (server)
                (equal (plist-get (eglot--server-info server) :name) "intent-lsp"))
              (gethash (or project (eglot--current-project)) eglot--servers-by-project))))

(defun intent-lsp--eglot-claim ()
  "In a file of a governed workspace, make intent-lsp the buffer's eglot server.
Puts intent-lsp first in this buffer's `eglot-server-programs', for whatever
major mode it is in (stock Emacs opens .md and .ts files in `fundamental-mode').
When intent-lsp already runs for the workspace, that connection takes this
mode too, so the buffer joins it: one server per workspace, whatever the modes.
Files outside governed workspaces are left alone."
  (when (and buffer-file-name (intent-lsp-root) (intent-lsp--wanted-mode-p))
    (setq-local eglot-server-programs
                (cons (cons major-mode intent-lsp-command) (default-value 'eglot-server-programs)))
    ;; eglot 1.9 picks a buffer's server by its major mode (`eglot--major-modes')
    (let ((server (intent-lsp--eglot-server)))
      (when (and server (slot-exists-p server 'major-modes)
                 (not (memq major-mode (slot-value server 'major-modes))))
        (setf (slot-value server 'major-modes)
              (append (slot-value server 'major-modes) (list major-mode)))))))

;;;###autoload
(defun intent-lsp-setup ()
  "Use intent-lsp as eglot's server for the files of governed workspaces.
Then \\[eglot] in any such file starts it, and the workspace's other files
join it as they are visited."
  (require 'eglot)
  (add-hook 'project-find-functions #'intent-lsp-project 90)
  ;; before eglot's own hooks (depth 0), which attach a visited file to a running server
  (add-hook 'find-file-hook #'intent-lsp--eglot-claim -50)
  (add-hook 'after-change-major-mode-hook #'intent-lsp--eglot-claim -50)
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer (intent-lsp--eglot-claim))))

;;;; lsp-mode

(defvar lsp-language-id-configuration)
(defvar lsp--cur-workspace)
(declare-function lsp-register-client "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function lsp-find-workspace "lsp-mode")
(declare-function lsp-request "lsp-mode")
(declare-function lsp--buffer-uri "lsp-mode")

(defun intent-lsp--lsp-activate-p (file-name _mode)
  "lsp-mode's activation test: FILE-NAME is in a governed workspace."
  (and file-name (intent-lsp-root file-name) t))

(defun intent-lsp--lsp-claim ()
  "Give files of governed workspaces a languageId even where lsp-mode knows none.
lsp-mode names a file's language from `lsp-language-id-configuration'; for a
file it does not know (a .md in `fundamental-mode') it would warn and send none.
The fallback \"plaintext\" is set for this buffer only."
  (when (and buffer-file-name (intent-lsp-root) (boundp 'lsp-language-id-configuration))
    (setq-local lsp-language-id-configuration
                (append (default-value 'lsp-language-id-configuration) '(("" . "plaintext"))))))

;;;###autoload
(defun intent-lsp-lsp-mode-setup ()
  "Register intent-lsp with lsp-mode, as an add-on server for governed workspaces.
It starts, next to the language's own server, in every file below a directory
with .orchestration/active_intents.yaml; then \\[lsp] in such a file."
  (require 'lsp-mode)
  (add-hook 'project-find-functions #'intent-lsp-project 90)
  (add-hook 'find-file-hook #'intent-lsp--lsp-claim -50)
  (add-hook 'after-change-major-mode-hook #'intent-lsp--lsp-claim -50)
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer (intent-lsp--lsp-claim)))
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () intent-lsp-command))
    :activation-fn #'intent-lsp--lsp-activate-p
    :add-on? t
    :priority -1
    :server-id 'intent-lsp)))

;;;; Commands, for either client

(defun intent-lsp--lsp-workspace ()
  "This buffer's lsp-mode workspace of intent-lsp, if any."
  (and (bound-and-true-p lsp-mode) buffer-file-name (fboundp 'lsp-find-workspace)
       (lsp-find-workspace 'intent-lsp buffer-file-name)))

(defun intent-lsp--execute (command &optional arguments)
  "Run COMMAND on this buffer's intent-lsp with one ARGUMENTS plist; return the result.
The buffer's uri is added, so a server with several workspaces knows which one."
  (let ((workspace (intent-lsp--lsp-workspace))
        (server (and (not (intent-lsp--lsp-workspace)) (fboundp 'eglot-current-server)
                     (intent-lsp--eglot-server))))
    (unless (or workspace server)
      (user-error "intent-lsp is not running for this buffer (M-x eglot or M-x lsp in a file of the workspace)"))
    (let* ((uri (and buffer-file-name
                     (if workspace (lsp--buffer-uri) (eglot--path-to-uri buffer-file-name))))
           (params (list :command command
                         ;; :quiet: this package shows the answer itself, not the server's message too
                         :arguments (vector (append arguments (list :quiet t) (and uri (list :uri uri)))))))
      (if workspace
          (let ((lsp--cur-workspace workspace))
            (lsp-request "workspace/executeCommand" params))
        (jsonrpc-request server :workspace/executeCommand params)))))

(defun intent-lsp--read-intent ()
  "Ask for one of the intents the server offers for selection; return (ID START) for `intent-lsp-select'.
The server's selectAs says which (as in every editor's picker): in progress, or started (pending) or
resumed (blocked) first; complete and archived work is not offered."
  (let* ((intents (seq-filter (lambda (i) (stringp (intent-lsp--get i :selectAs)))
                              (append (intent-lsp--execute "intent.listIntents") nil)))
         (choices (mapcar (lambda (i)
                            (let ((how (intent-lsp--get i :selectAs)))
                              (cons (format "%s — %s [%s]%s" (intent-lsp--get i :id) (intent-lsp--get i :name)
                                            (intent-lsp--get i :status)
                                            (cond ((equal how "start") "  (Start and select)")
                                                  ((equal how "resume") "  (Resume and select)")
                                                  (t "")))
                                    i)))
                          intents))
         (intent (cdr (assoc (completing-read "Intent: " choices nil t) choices))))
    (list (intent-lsp--get intent :id) (not (equal (intent-lsp--get intent :selectAs) "select")))))

;;;###autoload
(defun intent-lsp-select (id &optional start)
  "Select intent ID for the workspace; START (or a pending or blocked pick) also starts it.
The same selection as `intent select ID' in a terminal."
  (interactive (intent-lsp--read-intent))
  (intent-lsp--execute "intent.selectIntent" (append (list :id id) (and start (list :start t))))
  (message "intent-lsp: selected %s" id))

;;;###autoload
(defun intent-lsp-clear ()
  "Clear the workspace's selected intent (auto-selection applies again)."
  (interactive)
  (intent-lsp--execute "intent.clearIntent")
  (message "intent-lsp: selection cleared"))

(defun intent-lsp--blame-cells (row)
  "The four columns of `intent blame' for ROW."
  (if (not (equal (intent-lsp--get row :kind) "traced"))
      (list (or (intent-lsp--get row :kind) "?") "" "" "")
    (let ((model (intent-lsp--get row :model))
          (when (or (intent-lsp--get row :timestamp) "")))
      (list (concat (or (intent-lsp--get row :intent) "no intent")
                    (if (eq (intent-lsp--get row :outOfScope) t) " (out of scope)" ""))
            (or (and model (car (last (split-string model "/"))))
                (intent-lsp--get row :person) (intent-lsp--get row :contributor) "")
            (replace-regexp-in-string "T" " " (substring when 0 (min 16 (length when))))
            (concat (let ((id (or (intent-lsp--get row :traceId) ""))) (substring id 0 (min 8 (length id))))
                    (if (eq (intent-lsp--get row :exact) t) "" "?"))))))

(defun intent-lsp-format-blame (rows)
  "ROWS of `intent.blame' as the lines `intent blame FILE:L-L' prints in a terminal."
  (let* ((rows (append rows nil))
         (cells (mapcar #'intent-lsp--blame-cells rows))
         (widths (seq-reduce (lambda (w c) (seq-mapn (lambda (a b) (max a (string-width b))) w c))
                             cells '(0 0 0 0)))
         (number-width (length (number-to-string (or (intent-lsp--get (car (last rows)) :line) 1)))))
    (seq-mapn (lambda (row cell)
                (concat (string-pad (number-to-string (intent-lsp--get row :line)) number-width nil t)
                        "  "
                        (mapconcat #'identity (seq-mapn (lambda (c w) (string-pad c w)) cell widths) "  ")
                        " │ " (intent-lsp--get row :text)))
              rows cells)))

;;;###autoload
(defun intent-lsp-blame (start end)
  "Which intent, contributor and model wrote the lines from START to END.
Interactively, the region's lines, or the current line."
  (interactive (if (use-region-p) (list (region-beginning) (region-end)) (list (point) (point))))
  (let* ((result (intent-lsp--execute "intent.blame"
                                      (list :startLine (1- (line-number-at-pos start))
                                            :endLine (1- (line-number-at-pos end)))))
         (rows (intent-lsp--get result :lines)))
    (if (seq-empty-p rows)
        (message "intent-lsp: no blame for these lines")
      (message "%s" (string-join (intent-lsp-format-blame rows) "\n")))))

(provide 'intent-lsp)
;;; intent-lsp.el ends here
