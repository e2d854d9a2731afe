;;; elpa-install.el --- what Debian's dh-elpa does when an elpa-* package is installed  -*- lexical-binding: t; -*-

;; emacs --batch -Q -l elpa-install.el SITE-LISP
;;
;; Debian's elpa-* packages ship their sources in SITE-LISP/elpa-src/NAME-VERSION; installing one links
;; them into SITE-LISP/elpa/NAME-VERSION and byte-compiles them there, where package.el finds them
;; (`package-directory-list').  ensure-editor.sh unpacks the packages without installing them, so this
;; does that step: copy each package into elpa/, activate them all, byte-compile each.  Compiler warnings
;; go to elpa/compile.log; a file that does not compile stops the install.

;;; Code:

(require 'package)

;; The unpacked Emacs runs through the dynamic loader with the unpacked libraries' path; the native compiler
;; starts a second Emacs by its file name, without that path, and needs libgccjit and a C toolchain besides.
;; Byte code is what Debian's install produces too, so native compilation (trampolines included) stays off.
(setq native-comp-deferred-compilation nil
      comp-enable-subr-trampolines nil)

(let* ((site-lisp (file-name-as-directory (expand-file-name (car command-line-args-left))))
       (src (expand-file-name "elpa-src" site-lisp))
       (dest (expand-file-name "elpa" site-lisp))
       (log (expand-file-name "compile.log" dest))
       (failed nil))
  (make-directory dest t)
  (dolist (dir (directory-files src t "\\`[^.]"))
    (copy-directory dir (expand-file-name (file-name-nondirectory dir) dest) nil t t))
  (setq package-directory-list (list dest)
        package-user-dir (make-temp-file "elpa-install-user" t)
        load-prefer-newer t)
  (package-activate-all)
  (with-temp-buffer
    (dolist (dir (directory-files dest t "\\`[^.]"))
      (when (file-directory-p dir)
        (dolist (file (directory-files dir t "\\.el\\'"))
          (unless (string-match-p "-\\(pkg\\|autoloads\\)\\.el\\'" file)
            (let ((byte-compile-log-buffer (buffer-name)))
              (unless (ignore-errors (byte-compile-file file))
                (push file failed)))))))
    (write-region (point-min) (point-max) log nil 'silent))
  (setq command-line-args-left nil)
  (when failed
    (princ (format "elpa-install.el: could not byte-compile %S (see %s)\n" failed log) #'external-debugging-output)
    (kill-emacs 1))
  (princ (format "elpa-install.el: %d packages in %s\n" (length (directory-files dest nil "-[0-9]")) dest)
         #'external-debugging-output))

;;; elpa-install.el ends here
