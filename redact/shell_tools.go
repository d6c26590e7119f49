package redact

// Programs whose flags carry a password in their own way.
type tool uint8

const (
	toolNone tool = iota
	toolMySQL
	toolSSHPass
	toolRegistry // docker/podman/helm … login
	toolTwine
	toolMongo
	toolAz
	toolRedis
	toolSQLCmd
	toolLDAP
	toolCurl
	toolHTTPie
	toolSMB
	toolOpenSSL
	toolGH
	toolZip
	tool7z
	toolSSHKeygen
	toolVault
	toolHtpasswd
	toolSQLPlus
	toolChpasswd
)

func toolOf(base string) tool {
	switch base {
	case "mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow", "mysqlpump", "mysqlsh",
		"mysqlbinlog", "mysqlslap", "mariadb", "mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-check",
		"mariadb-show", "mycli":
		return toolMySQL
	case "sshpass":
		return toolSSHPass
	case "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "finch":
		return toolRegistry
	case "twine":
		return toolTwine
	case "mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles":
		return toolMongo
	case "az":
		return toolAz
	case "redis-cli", "valkey-cli", "keydb-cli":
		return toolRedis
	case "sqlcmd", "bcp", "osql", "isql":
		return toolSQLCmd
	case "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare", "ldapmodrdn", "ldapexop":
		return toolLDAP
	case "curl":
		return toolCurl
	case "http", "https", "xh", "xhs", "httpie":
		return toolHTTPie
	case "smbclient", "rpcclient", "smbcacls", "smbget", "smbmap":
		return toolSMB
	case "openssl":
		return toolOpenSSL
	case "gh":
		return toolGH
	case "zip", "unzip", "zipcloak":
		return toolZip
	case "7z", "7za", "7zz", "7zr":
		return tool7z
	case "ssh-keygen":
		return toolSSHKeygen
	case "vault":
		return toolVault
	case "htpasswd":
		return toolHtpasswd
	case "sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr":
		return toolSQLPlus
	case "chpasswd":
		return toolChpasswd
	}
	return toolNone
}

// How a password flag's value holds the secret.
const (
	modeWhole        = iota
	modeAfterColon   // user:secret
	modeAfterPercent // user%secret
	modeAfterPass    // pass:secret (env:VAR and file:path are no secret)
)

type flagRule struct {
	flag     string
	attached bool // -pSECRET, --user=…
	separate bool // -p SECRET
	mode     uint8
}

type toolRules struct {
	sub   string // a word the command must hold: login, secret
	flags []flagRule
}

var rulesOf = [...]toolRules{
	toolMySQL:     {flags: []flagRule{{"-p", true, false, modeWhole}}}, // -p alone prompts; the next word is the database
	toolSSHPass:   {flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolRegistry:  {sub: "login", flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolTwine:     {flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolMongo:     {flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolAz:        {sub: "login", flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolRedis:     {flags: []flagRule{{"-a", true, true, modeWhole}}},
	toolSQLCmd:    {flags: []flagRule{{"-P", true, true, modeWhole}}},
	toolLDAP:      {flags: []flagRule{{"-w", true, true, modeWhole}}},
	toolCurl:      {flags: []flagRule{{"-u", true, true, modeAfterColon}, {"--user", true, true, modeAfterColon}, {"-U", true, true, modeAfterColon}, {"--proxy-user", true, true, modeAfterColon}}},
	toolHTTPie:    {flags: []flagRule{{"-a", true, true, modeAfterColon}, {"--auth", true, true, modeAfterColon}}},
	toolSMB:       {flags: []flagRule{{"-U", true, true, modeAfterPercent}, {"--user", true, true, modeAfterPercent}}},
	toolOpenSSL:   {flags: []flagRule{{"-passin", false, true, modeAfterPass}, {"-passout", false, true, modeAfterPass}, {"-pass", false, true, modeAfterPass}, {"-k", false, true, modeWhole}}},
	toolGH:        {sub: "secret", flags: []flagRule{{"-b", true, true, modeWhole}, {"--body", true, true, modeWhole}}},
	toolZip:       {flags: []flagRule{{"-P", true, true, modeWhole}}},
	tool7z:        {flags: []flagRule{{"-p", true, false, modeWhole}}},
	toolSSHKeygen: {flags: []flagRule{{"-N", true, true, modeWhole}, {"-P", true, true, modeWhole}}},
}
