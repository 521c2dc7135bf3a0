package synth

// Word lists for bodies, names and listings. The common words come first so
// that a Zipf draw over a list favours its head, as natural text does: a
// search for "coffee" matches many posts, one for "quokka" a handful.

var commonWords = []string{
	"the", "and", "to", "of", "a", "in", "is", "it", "you", "that", "for", "on", "with", "this", "was", "are",
	"but", "just", "so", "my", "what", "today", "all", "we", "be", "have", "not", "at", "one", "can", "out",
	"about", "more", "time", "day", "new", "like", "now", "really", "good", "great", "people", "love", "still",
	"week", "work", "home", "first", "again", "night", "morning", "coffee", "back", "team", "city", "weekend",
	"little", "finally", "long", "best", "year", "thanks", "friends", "family", "music", "book", "photo",
	"project", "learning", "trying", "running", "walk", "rain", "sun", "summer", "winter", "spring", "autumn",
	"garden", "kitchen", "dinner", "lunch", "breakfast", "bread", "pizza", "tea", "market", "train", "bike",
	"travel", "beach", "mountain", "river", "lake", "forest", "park", "street", "office", "meeting", "release",
	"code", "golang", "postgres", "database", "server", "design", "idea", "question", "answer", "story",
	"movie", "series", "game", "match", "football", "tennis", "climbing", "yoga", "cooking", "baking",
	"painting", "drawing", "camera", "sunset", "sunrise", "clouds", "snow", "storm", "quiet", "busy", "happy",
	"tired", "excited", "proud", "grateful", "curious", "amazing", "beautiful", "simple", "slow", "fast",
	"small", "big", "old", "young", "early", "late", "local", "favourite", "perfect", "strange", "funny",
	"honest", "fresh", "warm", "cold", "bright", "dark", "green", "blue", "red", "yellow", "concert", "festival",
	"museum", "library", "school", "class", "lesson", "exam", "birthday", "wedding", "holiday", "trip",
	"flight", "airport", "station", "hotel", "village", "island", "harbour", "bridge", "tower", "castle",
	"recipe", "soup", "salad", "cheese", "chocolate", "cake", "cookies", "apples", "tomatoes", "pasta",
	"noodles", "rice", "curry", "tacos", "sushi", "dumplings", "ramen", "espresso", "latte", "podcast",
	"album", "guitar", "piano", "drums", "vinyl", "poetry", "novel", "chapter", "notebook", "keyboard",
	"laptop", "phone", "update", "launch", "deadline", "bug", "fix", "review", "deploy", "benchmark",
	"feature", "startup", "volunteer", "neighbours", "community", "dog", "cat", "puppy", "kitten", "birds",
	"owl", "fox", "deer", "bees", "flowers", "tulips", "roses", "plants", "seeds", "harvest", "picnic",
	"marathon", "swimming", "hiking", "camping", "sailing", "kayak", "surfing", "skiing", "skating",
	"chess", "puzzle", "crossword", "knitting", "pottery", "woodwork", "gardening", "photography",
	"astronomy", "telescope", "comet", "eclipse", "moon", "stars", "galaxy", "volcano", "glacier", "canyon",
	"desert", "lighthouse", "quokka", "axolotl", "narwhal", "xylophone", "zeppelin", "origami", "tapestry",
	"sourdough", "kombucha", "saffron", "cardamom", "mango", "papaya", "lychee", "persimmon", "fjord",
}

var tagWords = []string{
	"golang", "photography", "travel", "food", "music", "books", "running", "coffee", "art", "nature",
	"weekend", "fitness", "cooking", "design", "startup", "postgres", "gardening", "cats", "dogs", "hiking",
	"football", "tech", "science", "history", "movies", "gaming", "climbing", "yoga", "baking", "sunset",
	"streetphotography", "vinyl", "podcast", "opensource", "career", "remote", "learning", "poetry",
	"astronomy", "cycling", "marathon", "vegan", "recipes", "diy", "architecture", "jazz", "festival",
	"birds", "ocean", "mountains", "winter", "summer", "spring", "autumn", "chess", "knitting", "pottery",
	"sourdough", "kombucha", "origami",
}

var firstNames = []string{
	"Alice", "Bob", "Carol", "David", "Erin", "Frank", "Grace", "Hugo", "Iris", "Jack", "Karin", "Liam",
	"Maya", "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sam", "Tara", "Umar", "Vera", "Will", "Xenia",
	"Yusuf", "Zoe", "Amara", "Bruno", "Chloe", "Dmitri", "Elena", "Farah", "Gustav", "Hana", "Ines",
	"Jonas", "Kenji", "Lena", "Mateo", "Nadia", "Oscar", "Priya", "Rafael", "Sofia", "Tomas", "Ulla",
	"Victor", "Wen", "Yara", "Zain", "Anika", "Ben", "Clara", "Diego", "Emma", "Felix", "Gita", "Henrik",
	"Ivy", "Jamal", "Kira", "Leo", "Mina", "Nils", "Omar", "Paula", "Ruth", "Stefan", "Tess", "Uma",
}

var lastNames = []string{
	"Martin", "Chen", "Okafor", "Novak", "Silva", "Dubois", "Kowalski", "Nakamura", "Haddad", "Jensen",
	"Garcia", "Rossi", "Smith", "Ivanova", "Kim", "Müller", "Popescu", "Santos", "Nguyen", "Patel",
	"Andersson", "Fischer", "Moreau", "Tanaka", "Costa", "Horvat", "Lindqvist", "Mendes", "Ortiz", "Quinn",
	"Reyes", "Schmidt", "Takahashi", "Usman", "Varga", "Weber", "Yilmaz", "Zhang", "Abara", "Brooks",
	"Campbell", "Dahl", "Eriksen", "Ferreira", "Gomez", "Hansen", "Ito", "Jovanovic", "Kaur", "Lopez",
}

type place struct{ city, region, country, currency string }

var places = []place{
	{"Lisbon", "Lisboa", "PT", "EUR"}, {"Porto", "Porto", "PT", "EUR"}, {"Berlin", "Berlin", "DE", "EUR"},
	{"Hamburg", "Hamburg", "DE", "EUR"}, {"Paris", "Île-de-France", "FR", "EUR"}, {"Lyon", "Auvergne-Rhône-Alpes", "FR", "EUR"},
	{"Madrid", "Madrid", "ES", "EUR"}, {"Valencia", "Valencia", "ES", "EUR"}, {"Amsterdam", "North Holland", "NL", "EUR"},
	{"Milan", "Lombardy", "IT", "EUR"}, {"Rome", "Lazio", "IT", "EUR"}, {"Vienna", "Vienna", "AT", "EUR"},
	{"Dublin", "Leinster", "IE", "EUR"}, {"London", "England", "GB", "GBP"}, {"Manchester", "England", "GB", "GBP"},
	{"Edinburgh", "Scotland", "GB", "GBP"}, {"New York", "NY", "US", "USD"}, {"Austin", "TX", "US", "USD"},
	{"Seattle", "WA", "US", "USD"}, {"Chicago", "IL", "US", "USD"}, {"Toronto", "Ontario", "CA", "CAD"},
	{"Vancouver", "British Columbia", "CA", "CAD"}, {"Stockholm", "Stockholm", "SE", "SEK"}, {"Oslo", "Oslo", "NO", "NOK"},
	{"Copenhagen", "Capital Region", "DK", "DKK"}, {"Warsaw", "Masovia", "PL", "PLN"}, {"Prague", "Prague", "CZ", "CZK"},
	{"Zurich", "Zurich", "CH", "CHF"}, {"Tokyo", "Tokyo", "JP", "JPY"}, {"Sydney", "NSW", "AU", "AUD"},
}

var listingItems = []string{
	"bike", "sofa", "desk", "chair", "lamp", "camera", "laptop", "phone", "guitar", "piano", "bookshelf",
	"jacket", "boots", "dress", "stroller", "crib", "kayak", "tent", "skis", "snowboard", "television",
	"monitor", "keyboard", "headphones", "speaker", "record player", "coffee machine", "blender", "mixer",
	"dining table", "wardrobe", "mattress", "rug", "mirror", "plant pots", "lawn mower", "drill", "toolbox",
	"board games", "lego set", "puzzle", "novels", "textbooks", "vinyl records", "watch", "backpack",
	"suitcase", "scooter", "car seat", "treadmill", "dumbbells", "yoga mat", "tennis racket", "golf clubs",
}

var listingAdjectives = []string{
	"vintage", "barely used", "solid oak", "compact", "foldable", "electric", "handmade", "classic", "modern",
	"refurbished", "like new", "sturdy", "lightweight", "waterproof", "wireless", "antique", "designer",
}

var jobTitles = []string{
	"Backend Engineer", "Frontend Engineer", "Site Reliability Engineer", "Data Engineer", "Product Designer",
	"Product Manager", "Engineering Manager", "QA Engineer", "Mobile Developer", "Security Engineer",
	"Database Administrator", "Technical Writer", "Customer Success Manager", "Sales Representative",
	"Marketing Manager", "Barista", "Chef", "Nurse", "Teacher", "Accountant", "Electrician", "Carpenter",
	"Graphic Designer", "Community Manager", "Research Scientist", "Operations Analyst", "Recruiter",
}

var companyNames = []string{
	"Acme", "Globex", "Initech", "Umbrella Labs", "Hooli", "Stark Works", "Wayne Foods", "Wonka Sweets",
	"Cyberdyne", "Soylent", "Tyrell Systems", "Vandelay Imports", "Pied Piper", "Aperture", "Black Mesa",
	"Oceanic Air", "Monarch Bakery", "Blue Harbor", "Northwind", "Contoso", "Fabrikam", "Litware",
	"Tailspin Toys", "Adventure Works", "Proseware", "Lucerne Publishing", "Margie's Travel", "Trey Research",
}
