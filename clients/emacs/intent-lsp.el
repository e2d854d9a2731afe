;;; intent-lsp.el --- intent-lsp for Emacs through eglot  -*- lexical-binding: t; -*-

;; Works with Emacs 29+ (eglot built in) and Emacs 28 with eglot from ELPA (Debian: elpa-eglot).
;;
;;   (add-to-list 'load-path "/path/to/intent-lsp/clients/emacs")
;;   (require 'intent-lsp)
;;   (intent-lsp-setup)            ; then M-x eglot in a file of an intent workspace
;;
;; Eglot runs ONE language server per major mode and project: where intent-lsp is registered, it
;; replaces that mode's usual server (typescript-language-server, pyright, ...).  Keep
;; `intent-lsp-modes' to the modes where scope checks matter more to you than completion, or use
;; lsp-mode, which can run intent-lsp as an add-on server next to the language's own.
;;
;; Quick fixes arrive as code actions (M-x eglot-code-actions); "Select INT-…" runs on the server.

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'project)

(defgroup intent-lsp nil
  "Intent scopes and Agent Trace attribution, via the intent-lsp language server."
  :group 'tools)

(defcustom intent-lsp-command '("intent-lsp" "--stdio")
  "Command line that starts the server.
For a checkout: (\"node\" \"/path/to/dist/server.js\" \"--stdio\")."
  :type '(repeat string))

(defcustom intent-lsp-modes
  '(markdown-mode gfm-mode text-mode yaml-mode yaml-ts-mode json-mode json-ts-mode
    js-mode js-ts-mode typescript-mode typescript-ts-mode tsx-ts-mode
    python-mode python-ts-mode go-mode go-ts-mode rust-mode rust-ts-mode)
  "Major modes whose files eglot hands to intent-lsp.
In these modes intent-lsp replaces the usual server: eglot runs one per mode."
  :type '(repeat symbol))

(defvar intent-lsp--entry nil
  "The `eglot-server-programs' entry added by `intent-lsp-setup'.
Kept so that a second call replaces it instead of adding another.")

(defun intent-lsp-project (dir)
  "A project rooted at the nearest directory above DIR that declares intents.
Consulted only when no version-control project is found, so git
repositories keep their root."
  (let ((root (locate-dominating-file dir ".orchestration/active_intents.yaml")))
    (and root (cons 'transient (expand-file-name root)))))

;;;###autoload
(defun intent-lsp-setup ()
  "Register intent-lsp with eglot for `intent-lsp-modes'.
It goes ahead of other servers for those modes."
  (setq eglot-server-programs (delq intent-lsp--entry eglot-server-programs))
  (setq intent-lsp--entry (cons intent-lsp-modes intent-lsp-command))
  (push intent-lsp--entry eglot-server-programs)
  (add-hook 'project-find-functions #'intent-lsp-project 90))

(defun intent-lsp--execute (command &optional arguments)
  "Run COMMAND on this buffer's server with one ARGUMENTS plist; return the result."
  (let ((server (eglot-current-server)))
    (unless server (user-error "intent-lsp: no eglot server here (M-x eglot first)"))
    (jsonrpc-request server :workspace/executeCommand
                     (list :command command :arguments (vector (or arguments (make-hash-table)))))))

(defun intent-lsp--read-intent ()
  "Ask for one of the server's intents; return (ID START) for `intent-lsp-select'."
  (let* ((intents (append (intent-lsp--execute "intent.listIntents") nil))
         (choices (mapcar (lambda (i)
                            (cons (format "%s — %s [%s]" (plist-get i :id) (plist-get i :name) (plist-get i :status))
                                  i))
                          intents))
         (intent (cdr (assoc (completing-read "Intent: " choices nil t) choices))))
    (list (plist-get intent :id) (equal (plist-get intent :status) "PENDING"))))

;;;###autoload
(defun intent-lsp-select (id &optional start)
  "Select intent ID for the workspace; START (or a PENDING pick) also starts it."
  (interactive (intent-lsp--read-intent))
  (intent-lsp--execute "intent.selectIntent" (append (list :id id) (and start (list :start t))))
  (message "intent-lsp: selected %s" id))

;;;###autoload
(defun intent-lsp-clear ()
  "Clear the workspace's selected intent."
  (interactive)
  (intent-lsp--execute "intent.clearIntent")
  (message "intent-lsp: selection cleared"))

(provide 'intent-lsp)
;;; intent-lsp.el ends here
