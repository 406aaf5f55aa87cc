; Inno Setup 6 script: a per-user Windows installer for fastdesk (no administrator rights asked).
;
;   iscc /DMyAppVersion=0.1.0 packaging\windows\fastdesk.iss
;
; Input:  dist\fastdesk\ from `pyinstaller packaging\fastdesk.spec` (fastdesk.exe: the window,
;         built windowed; fastdesk-cli.exe: the command line, built as a console program).
; Output: dist\fastdesk-<version>-windows-x64-setup.exe
; Installs to %LOCALAPPDATA%\Programs\fastdesk ({autopf} in non-administrative mode), adds a
; Start menu entry (and optionally a desktop one), lists fastdesk under "Open with" for .md
; files, and registers an uninstaller (Settings > Apps). The user's settings, memory and keys
; are not touched by the uninstaller. Relative paths below are relative to this script's folder.

#ifndef MyAppVersion
  #error Pass the version: iscc /DMyAppVersion=X.Y.Z packaging\windows\fastdesk.iss
#endif

[Setup]
; AppId identifies the app across upgrades: never change it.
AppId={{9C743928-F295-4056-A579-8170C5283C4A}
AppName=fastdesk
AppVersion={#MyAppVersion}
AppVerName=fastdesk {#MyAppVersion}
AppPublisher=The fastdesk developers
AppPublisherURL=https://github.com/fastdesk/fastdesk
PrivilegesRequired=lowest
DefaultDirName={autopf}\fastdesk
DefaultGroupName=fastdesk
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir=..\..\dist
OutputBaseFilename=fastdesk-{#MyAppVersion}-windows-x64-setup
SetupIconFile=..\..\resources\icons\fastdesk.ico
UninstallDisplayIcon={app}\fastdesk.exe
UninstallDisplayName=fastdesk {#MyAppVersion}
ChangesAssociations=yes
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An upgrade replaces the whole bundle: files the new version no longer ships must not linger.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "..\..\dist\fastdesk\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\fastdesk"; Filename: "{app}\fastdesk.exe"
Name: "{autodesktop}\fastdesk"; Filename: "{app}\fastdesk.exe"; Tasks: desktopicon

[Registry]
; "Open with > fastdesk" for Markdown files (HKA = HKCU\Software\Classes in a per-user install);
; the user's default app for .md is left alone.
Root: HKA; Subkey: "Software\Classes\.md\OpenWithProgids"; ValueType: string; ValueName: "fastdesk.md"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.markdown\OpenWithProgids"; ValueType: string; ValueName: "fastdesk.md"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\fastdesk.md"; ValueType: string; ValueName: ""; ValueData: "Markdown document"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\fastdesk.md\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\fastdesk.exe,0"
Root: HKA; Subkey: "Software\Classes\fastdesk.md\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\fastdesk.exe"" ""%1"""

[Run]
Filename: "{app}\fastdesk.exe"; Description: "{cm:LaunchProgram,fastdesk}"; Flags: nowait postinstall skipifsilent
